package io.demandfold.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.demandfold.core.Causes;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the other instances for their local part of a cluster-wide answer (a target's shards, top,
 * summary). Their replies are read as JSON and their values rebuilt into this instance's own reply:
 * nothing of a peer's reply (its Content-Type, other headers, bytes that are not a JSON object) is
 * relayed as it is. Requests carry {@link #FORWARDED} with this instance's address.
 *
 * <p>The instances are those the consumer group announces ({@code application.server}), so any
 * member of the group names them. Each is asked only if it is a plain {@code host:port} (a DNS name
 * or an IP address, a port 1..65535), only over {@code http}, with a fixed path, no redirect
 * followed, 2 s to connect and {@link #TIMEOUT} to answer, and at most the caller's bound of reply
 * bytes is read ({@link #replyBound}); any other instance is listed as unavailable, with the
 * reason.
 */
final class Peers {
  private static final Logger log = LoggerFactory.getLogger(Peers.class);
  static final String FORWARDED = "X-Demandfold-Forwarded-By";
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  /** Bytes of a reply besides its lines (the header fields, the table line, the brackets). */
  static final long REPLY_OVERHEAD_BYTES = 64 * 1024;

  /**
   * The most bytes one line of a reply takes (a shard line or a target of {@code top}), with room:
   * the largest shard line (a target of 1,024 UTF-8 bytes and a shard id of 256, both of control
   * characters written as 6-byte escapes, the target's hex, 64 flush times, every number at its
   * longest) takes 15,986 bytes; {@code PeersTest} checks it fits.
   */
  static final long LINE_BYTES = 24 * 1024;

  private static final Pattern LABEL =
      Pattern.compile("[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?");

  private final HttpClient client =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(2))
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();
  private final String self;
  private final Set<String> warned = ConcurrentHashMap.newKeySet();

  Peers(String self) {
    this.self = self;
  }

  /**
   * The answers of several instances: the JSON of each 200 reply, who did not answer and why
   * (instance to reason, in the order asked).
   */
  record Gathered(List<JsonNode> replies, Map<String, String> reasons) {
    /** The instances that did not answer. */
    List<String> unavailable() {
      return List.copyOf(reasons.keySet());
    }

    /** {@code "a: why, b: why"}, for an error message. */
    String why() {
      List<String> parts = new ArrayList<>();
      reasons.forEach((instance, reason) -> parts.add(instance + ": " + reason));
      return String.join("; ", parts);
    }
  }

  /** The most bytes one point of {@code /history} takes: three numbers and their names. */
  static final long POINT_BYTES = 256;

  /**
   * The bound of a reply of at most {@code lines} lines of at most {@code lineBytes} each, plus
   * {@link #REPLY_OVERHEAD_BYTES}.
   */
  static long replyBound(int lines, long lineBytes) {
    return REPLY_OVERHEAD_BYTES + lines * lineBytes;
  }

  /**
   * GETs {@code pathAndQuery} (already encoded) from every instance at once and parses the replies
   * that are 200, {@code application/json}, a JSON object and at most {@code maxReplyBytes} long;
   * any other instance is listed as unavailable.
   */
  Gathered gather(List<String> instances, String pathAndQuery, long maxReplyBytes)
      throws InterruptedException {
    Map<String, String> reasons = new LinkedHashMap<>();
    Map<String, CompletableFuture<HttpResponse<byte[]>>> calls = new LinkedHashMap<>();
    for (String instance : instances) {
      String refused = refusal(instance);
      if (refused != null) {
        reasons.put(instance, refused);
        if (warned.add(instance)) {
          log.warn("http: not asking instance '{}' of the group: {}", instance, refused);
        }
        continue;
      }
      calls.put(
          instance,
          client.sendAsync(request(instance, pathAndQuery), BoundedBody.atMost(maxReplyBytes)));
    }
    List<JsonNode> replies = new ArrayList<>();
    for (var call : calls.entrySet()) {
      String instance = call.getKey();
      try {
        HttpResponse<byte[]> r =
            call.getValue().get(TIMEOUT.toMillis() + 1000, TimeUnit.MILLISECONDS);
        JsonNode reply =
            r.statusCode() == 200 && isJson(r) ? Replies.JSON.readTree(r.body()) : null;
        if (reply != null && reply.isObject()) {
          replies.add(reply);
        } else {
          reasons.put(
              instance,
              r.statusCode() != 200
                  ? "answered " + r.statusCode()
                  : "answered something that is not a JSON object");
        }
      } catch (ExecutionException e) {
        reasons.put(instance, failure(e.getCause()));
        if (Causes.find(e, BoundedBody.TooLargeException.class) != null) {
          log.warn(
              "http: instance {} answered {}: {}", instance, pathAndQuery, reasons.get(instance));
        }
      } catch (TimeoutException e) {
        call.getValue().cancel(true);
        reasons.put(instance, "no answer within " + TIMEOUT.toSeconds() + " s");
      } catch (IOException e) {
        reasons.put(instance, "answered something that is not a JSON object");
      }
    }
    Map<String, String> ordered = new LinkedHashMap<>();
    for (String instance : instances) {
      if (reasons.containsKey(instance)) {
        ordered.put(instance, reasons.get(instance));
      }
    }
    return new Gathered(replies, ordered);
  }

  private static String failure(Throwable t) {
    BoundedBody.TooLargeException big = Causes.find(t, BoundedBody.TooLargeException.class);
    if (big != null) {
      return big.getMessage();
    }
    Throwable root = Causes.root(t);
    return "failed: "
        + root.getClass().getSimpleName()
        + (root.getMessage() == null ? "" : ": " + root.getMessage());
  }

  /**
   * Why {@code instance} is not asked ({@code null}: it is): it must be {@code host:port} with a
   * DNS name or an IP address and a port 1..65535, so that nothing of it can change the scheme, the
   * path or the credentials of the request.
   */
  static String refusal(String instance) {
    String host;
    String port;
    if (instance.startsWith("[")) {
      int end = instance.indexOf("]:");
      if (end < 0) {
        return "not host:port";
      }
      host = instance.substring(0, end + 1);
      port = instance.substring(end + 2);
      if (!AllowedHosts.isIpLiteral(host)) {
        return "not an IP address in brackets";
      }
    } else {
      int colon = instance.lastIndexOf(':');
      if (colon <= 0 || instance.indexOf(':') != colon) {
        return "not host:port";
      }
      host = instance.substring(0, colon);
      port = instance.substring(colon + 1);
      if (!AllowedHosts.isIpLiteral(host) && !isDnsName(host)) {
        return "the host is neither a DNS name nor an IP address";
      }
    }
    if (port.isEmpty() || port.length() > 5 || !port.chars().allMatch(Character::isDigit)) {
      return "the port is not a number";
    }
    int p = Integer.parseInt(port);
    return p < 1 || p > 65535 ? "the port is not 1..65535" : null;
  }

  private static boolean isDnsName(String host) {
    String h = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
    if (h.isEmpty() || h.length() > 253) {
      return false;
    }
    for (String label : h.split("\\.", -1)) {
      if (!LABEL.matcher(label).matches()) {
        return false;
      }
    }
    return true;
  }

  private static boolean isJson(HttpResponse<?> r) {
    String type = r.headers().firstValue("Content-Type").orElse("");
    int semicolon = type.indexOf(';');
    return (semicolon < 0 ? type : type.substring(0, semicolon))
        .trim()
        .equalsIgnoreCase("application/json");
  }

  private HttpRequest request(String instance, String pathAndQuery) {
    return HttpRequest.newBuilder(URI.create("http://" + instance + pathAndQuery))
        .timeout(TIMEOUT)
        .header(FORWARDED, self)
        .header("Accept", "application/json")
        .GET()
        .build();
  }
}
