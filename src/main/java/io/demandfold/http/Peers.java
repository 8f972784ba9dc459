package io.demandfold.http;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Asks the other instances for their local part of a cluster-wide answer (a target's shards, top,
 * summary). Their replies are read as JSON and their values rebuilt into this instance's own reply:
 * nothing of a peer's reply (its Content-Type, other headers, bytes that are not a JSON object) is
 * relayed as it is. Requests carry {@link #FORWARDED} with this instance's address.
 */
final class Peers {
  static final String FORWARDED = "X-Demandfold-Forwarded-By";
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final HttpClient client =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(2))
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();
  private final String self;

  Peers(String self) {
    this.self = self;
  }

  /** The answers of several instances: the JSON of each 200 reply and who did not answer. */
  record Gathered(List<JsonNode> replies, List<String> unavailable) {}

  /**
   * GETs {@code pathAndQuery} (already encoded) from every instance at once and parses the replies
   * that are 200, {@code application/json} and a JSON object; any other instance is listed as
   * unavailable.
   */
  Gathered gather(List<String> instances, String pathAndQuery) throws InterruptedException {
    Map<String, CompletableFuture<HttpResponse<byte[]>>> calls = new LinkedHashMap<>();
    for (String instance : instances) {
      calls.put(
          instance,
          client.sendAsync(
              request(instance, pathAndQuery), HttpResponse.BodyHandlers.ofByteArray()));
    }
    List<JsonNode> replies = new ArrayList<>();
    List<String> unavailable = new ArrayList<>();
    for (var call : calls.entrySet()) {
      try {
        HttpResponse<byte[]> r =
            call.getValue().get(TIMEOUT.toMillis() + 1000, TimeUnit.MILLISECONDS);
        JsonNode reply =
            r.statusCode() == 200 && isJson(r) ? Replies.JSON.readTree(r.body()) : null;
        if (reply != null && reply.isObject()) {
          replies.add(reply);
        } else {
          unavailable.add(call.getKey());
        }
      } catch (ExecutionException | TimeoutException | IOException e) {
        call.getValue().cancel(true);
        unavailable.add(call.getKey());
      }
    }
    return new Gathered(replies, unavailable);
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
