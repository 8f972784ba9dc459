package io.demandfold.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** A small client of an instance's HTTP API for tests. */
final class Api {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final URI base;

  Api(URI base) {
    this.base = base;
  }

  /** A reply: status, body text, and the body as JSON when it is JSON. */
  record Reply(int status, String contentType, String body) {
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (Exception e) {
        throw new AssertionError("not JSON: " + body, e);
      }
    }
  }

  Reply get(String pathAndQuery) throws Exception {
    HttpResponse<String> r =
        CLIENT.send(
            HttpRequest.newBuilder(base.resolve(pathAndQuery))
                .timeout(Duration.ofSeconds(20))
                .build(),
            HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    return new Reply(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), r.body());
  }

  /** GETs, retrying a 503 (stores moving) for up to 60 s; the last reply otherwise. */
  Reply getSettled(String pathAndQuery) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    Reply r = get(pathAndQuery);
    while (r.status() == 503 && System.nanoTime() < deadline) {
      Thread.sleep(200);
      r = get(pathAndQuery);
    }
    return r;
  }

  static String demandPath(String target) {
    return "api/v1/demand?target=" + URLEncoder.encode(target, StandardCharsets.UTF_8);
  }
}
