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
 * followed, 2 s to connect, and at most the caller's bound of reply bytes is read ({@link
 * #replyBound}); any other instance is listed as unavailable, with the reason. The bounds of one
 * request to several instances hold for all of them together: {@link #TIMEOUT} from the first
 * request to the last byte of the last reply, and {@link #FANOUT_BYTES} of replies in all, so that
 * neither grows with the number of instances. A reply the caller cannot read (a field missing or of
 * another type, a shard record of a newer schema) counts as no answer, with the reason.
 */
final class Peers {
  private static final Logger log = LoggerFactory.getLogger(Peers.class);
  static final String FORWARDED = "X-Demandfold-Forwarded-By";
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  /** Bytes of the replies to one request, over every instance asked. */
  static final long FANOUT_BYTES = 32L << 20;

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

  /** How the caller reads one instance's reply; any exception refuses the reply. */
  @FunctionalInterface
  interface Reader<T> {
    T read(JsonNode reply);
  }

  /**
   * The answers of several instances: each 200 reply as its caller read it, who did not answer and
   * why (instance to reason, in the order asked).
   */
  record Gathered<T>(List<T> replies, Map<String, String> reasons) {
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
  Gathered<JsonNode> gather(List<String> instances, String pathAndQuery, long maxReplyBytes)
      throws InterruptedException {
    return gather(instances, pathAndQuery, maxReplyBytes, reply -> reply);
  }

  /**
   * {@link #gather(List, String, long)}, each reply read by {@code reader}: a reply it cannot read
   * lists its instance as unavailable, naming why.
   */
  <T> Gathered<T> gather(
      List<String> instances, String pathAndQuery, long maxReplyBytes, Reader<T> reader)
      throws InterruptedException {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    BoundedBody.Budget budget = new BoundedBody.Budget(FANOUT_BYTES);
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
          client.sendAsync(
              request(instance, pathAndQuery),
              BoundedBody.atMost(Math.min(maxReplyBytes, FANOUT_BYTES), budget)));
    }
    List<T> replies = new ArrayList<>();
    try {
      for (var call : calls.entrySet()) {
        String instance = call.getKey();
        String why;
        try {
          why = read(call.getValue(), deadline, reader, replies);
        } catch (ExecutionException e) {
          why = failure(e.getCause());
          if (Causes.find(e, BoundedBody.TooLargeException.class) != null) {
            log.warn("http: instance {} answered {}: {}", instance, pathAndQuery, why);
          }
        } catch (TimeoutException e) {
          why = "no whole answer within " + TIMEOUT.toSeconds() + " s (of the whole request)";
        }
        if (why != null) {
          reasons.put(instance, why);
        }
      }
    } finally {
      budget.close();
      calls.values().forEach(c -> c.cancel(true));
    }
    Map<String, String> ordered = new LinkedHashMap<>();
    for (String instance : instances) {
      if (reasons.containsKey(instance)) {
        ordered.put(instance, reasons.get(instance));
      }
    }
    return new Gathered<>(replies, ordered);
  }

  /**
   * Waits for one reply until {@code deadline}; adds it read to {@code replies}, or says why not.
   */
  private static <T> String read(
      CompletableFuture<HttpResponse<byte[]>> call,
      long deadline,
      Reader<T> reader,
      List<T> replies)
      throws InterruptedException, ExecutionException, TimeoutException {
    long left = deadline - System.nanoTime();
    if (left <= 0 && !call.isDone()) {
      throw new TimeoutException();
    }
    HttpResponse<byte[]> r = call.get(Math.max(0, left), TimeUnit.NANOSECONDS);
    if (r.statusCode() != 200) {
      return "answered " + r.statusCode();
    }
    JsonNode reply;
    try {
      reply = isJson(r) ? Replies.JSON.readTree(r.body()) : null;
    } catch (IOException e) {
      reply = null;
    }
    if (reply == null || !reply.isObject()) {
      return "answered something that is not a JSON object";
    }
    try {
      replies.add(reader.read(reply));
      return null;
    } catch (RuntimeException e) {
      return "answered a reply this instance cannot read: " + e.getMessage();
    }
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
