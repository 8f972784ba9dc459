package io.demandfold.it;

import com.fasterxml.jackson.databind.JsonNode;
import io.demandfold.local.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus server ({@code /usr/bin/prometheus}, Debian's {@code prometheus} package) as a
 * child process on 127.0.0.1, on a free port, with a generated configuration that scrapes one
 * target as job {@code demandfold} and evaluates the given rule files, and its storage in a
 * directory of the caller. {@link #close()} stops it (SIGTERM, then SIGKILL) and makes sure it is
 * gone.
 *
 * <pre>{@code
 * try (PrometheusServer p = PrometheusServer.start(dir, "127.0.0.1:8080", List.of(rules))) {
 *   JsonNode up = p.query("up"); // the data of /api/v1/query
 * }
 * }</pre>
 */
final class PrometheusServer implements AutoCloseable {
  static final Path BINARY = Path.of("/usr/bin/prometheus");
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final Process process;
  private final URI base;
  private final Path log;

  private PrometheusServer(Process process, URI base, Path log) {
    this.process = process;
    this.base = base;
    this.log = log;
  }

  /**
   * Starts Prometheus in {@code dir} (configuration, storage, {@code prometheus.log}) scraping
   * {@code http://target/metrics} every second and evaluating {@code rules} every second; returns
   * once it is ready.
   */
  static PrometheusServer start(Path dir, String target, List<Path> rules) throws Exception {
    if (!Files.isExecutable(BINARY)) {
      throw new IllegalStateException(
          BINARY + " is missing: run scripts/setup (apt-get install prometheus)");
    }
    int port = FreePorts.next();
    StringBuilder config =
        new StringBuilder("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n");
    config.append("rule_files:\n");
    for (Path r : rules) {
      config.append("  - '").append(r.toAbsolutePath()).append("'\n");
    }
    config
        .append("scrape_configs:\n")
        .append("  - job_name: demandfold\n")
        .append("    metrics_path: /metrics\n")
        .append("    static_configs:\n")
        .append("      - targets: ['")
        .append(target)
        .append("']\n");
    Path configFile = Files.writeString(dir.resolve("prometheus.yml"), config.toString());
    Path log = dir.resolve("prometheus.log");
    Process p =
        new ProcessBuilder(
                BINARY.toString(),
                "--config.file=" + configFile,
                "--storage.tsdb.path=" + Files.createDirectories(dir.resolve("data")),
                "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn")
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    PrometheusServer server =
        new PrometheusServer(p, URI.create("http://127.0.0.1:" + port + "/"), log);
    try {
      long deadline = System.nanoTime() + PATIENCE.toNanos();
      while (!server.ready()) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "Prometheus did not become ready; its log: " + Files.readString(log));
        }
        Thread.sleep(200);
      }
      return server;
    } catch (Exception e) {
      server.close();
      throw e;
    }
  }

  private boolean ready() {
    try {
      return CLIENT
              .send(
                  HttpRequest.newBuilder(base.resolve("-/ready")).timeout(PATIENCE).build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode()
          == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** The {@code data} of {@code /api/v1/query} for {@code promql} now. */
  JsonNode query(String promql) throws Exception {
    return api("api/v1/query?query=" + encode(promql));
  }

  /** The {@code data} of {@code /api/v1/query_range} over the last {@code span}. */
  JsonNode queryRange(String promql, Duration span, Duration step) throws Exception {
    long end = System.currentTimeMillis() / 1000;
    return api(
        "api/v1/query_range?query="
            + encode(promql)
            + "&start="
            + (end - span.toSeconds())
            + "&end="
            + end
            + "&step="
            + step.toSeconds());
  }

  /**
   * The {@code data} of a GET of the HTTP API, e.g. {@code api/v1/targets}.
   *
   * @throws IllegalStateException with Prometheus's error when the status is not success
   */
  JsonNode api(String pathAndQuery) throws Exception {
    HttpResponse<String> r =
        CLIENT.send(
            HttpRequest.newBuilder(base.resolve(pathAndQuery)).timeout(PATIENCE).build(),
            HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    JsonNode json = Api.JSON.readTree(r.body());
    if (r.statusCode() != 200 || !json.path("status").asText().equals("success")) {
      throw new IllegalStateException(
          pathAndQuery + " answered " + r.statusCode() + ": " + r.body());
    }
    return json.get("data");
  }

  /** Prometheus's own log so far. */
  String logText() throws IOException {
    return Files.readString(log);
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    List<ProcessHandle> tree = process.descendants().toList();
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    if (process.isAlive()) {
      throw new IllegalStateException("Prometheus (pid " + process.pid() + ") survived SIGKILL");
    }
  }
}
