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
 * Asks the other instances: a request for a target held elsewhere is forwarded to its owner, and
 * cluster-wide answers (top, summary) gather every instance's local part. Forwarded requests carry
 * {@link #FORWARDED}, so an instance never forwards a forwarded request again.
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

  /** A reply of another instance. */
  record Reply(int status, String contentType, byte[] body) {}

  /** The answers of several instances: the JSON of each 200 reply and who did not answer. */
  record Gathered(List<JsonNode> replies, List<String> unavailable) {}

  /**
   * GETs {@code pathAndQuery} (already encoded) from {@code instance}.
   *
   * @throws IOException when the instance cannot be reached or does not answer in time
   */
  Reply get(String instance, String pathAndQuery) throws IOException, InterruptedException {
    HttpResponse<byte[]> r =
        client.send(request(instance, pathAndQuery), HttpResponse.BodyHandlers.ofByteArray());
    return new Reply(
        r.statusCode(), r.headers().firstValue("Content-Type").orElse(Replies.JSON_TYPE), r.body());
  }

  /** GETs {@code pathAndQuery} from every instance at once and parses the 200 replies. */
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
        if (r.statusCode() == 200) {
          replies.add(Replies.JSON.readTree(r.body()));
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

  private HttpRequest request(String instance, String pathAndQuery) {
    return HttpRequest.newBuilder(URI.create("http://" + instance + pathAndQuery))
        .timeout(TIMEOUT)
        .header(FORWARDED, self)
        .header("Accept", "application/json")
        .GET()
        .build();
  }
}
