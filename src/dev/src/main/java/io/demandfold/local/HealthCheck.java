package io.demandfold.local;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/** One HTTP GET of an etcd {@code /health} URL. */
final class HealthCheck {
  private static final int TIMEOUT_MS = 1000;

  private HealthCheck() {}

  /** Null when {@code url} answers {@code "health":"true"}, else what it answered instead. */
  static String problem(String url) {
    HttpURLConnection connection = null;
    try {
      connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
      connection.setConnectTimeout(TIMEOUT_MS);
      connection.setReadTimeout(TIMEOUT_MS);
      int status = connection.getResponseCode();
      InputStream in = status < 400 ? connection.getInputStream() : connection.getErrorStream();
      String body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
      if (body.replace(" ", "").contains("\"health\":\"true\"")) {
        return null;
      }
      return "GET " + url + " answered " + status + " " + body.strip();
    } catch (IOException e) {
      return "GET " + url + " failed: " + e;
    } finally {
      if (connection != null) {
        connection.disconnect();
      }
    }
  }
}
