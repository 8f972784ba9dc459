package io.demandfold.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The dashboard page: static HTML, CSS and JavaScript shipped in the jar under {@code
 * io/demandfold/http/dashboard/}, no build step; the script polls the API.
 */
final class Dashboard {
  private static final String DIR = "/io/demandfold/http/dashboard/";

  private record Asset(String type, byte[] bytes) {}

  private final Map<String, Asset> assets =
      Map.of(
          "/", load("index.html", "text/html; charset=utf-8"),
          "/index.html", load("index.html", "text/html; charset=utf-8"),
          "/dashboard.css", load("dashboard.css", "text/css; charset=utf-8"),
          "/dashboard.js", load("dashboard.js", "text/javascript; charset=utf-8"));

  void serve(Exchange ex) throws IOException {
    Asset a = assets.get(ex.path());
    if (a == null) {
      throw ApiException.notFound("no such page: " + ex.path());
    }
    Replies.send(ex, 200, a.type(), a.bytes());
  }

  private static Asset load(String name, String type) {
    try (InputStream in = Dashboard.class.getResourceAsStream(DIR + name)) {
      if (in == null) {
        throw new IllegalStateException(DIR + name + " is missing from the jar");
      }
      return new Asset(type, in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
