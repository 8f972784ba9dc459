package io.demandfold.bench;

import io.demandfold.local.ServiceProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The HTTP endpoints of a {@code demandfold run} child the bench reads: readiness, metrics (its
 * dirty keys, its mirror's and fold's counters).
 */
final class ServiceHttp {
  private static final String DIRTY = "demandfold_mirror_dirty_keys{";

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final String base;

  ServiceHttp(int port) {
    this.base = "http://127.0.0.1:" + port;
  }

  /** Waits until {@code /readyz} answers 200; the {@link System#nanoTime} it first did. */
  long awaitReady(ServiceProcess p, Duration patience) throws InterruptedException {
    long deadline = System.nanoTime() + patience.toNanos();
    while (true) {
      ScaleRun.alive(p, deadline, "/readyz");
      try {
        if (get("/readyz").statusCode() == 200) {
          return System.nanoTime();
        }
      } catch (java.io.IOException e) {
        // not listening yet
      }
      Thread.sleep(100);
    }
  }

  /** Keys of every kind waiting for etcd, by {@code demandfold_mirror_dirty_keys}. */
  long dirtyKeys() throws Exception {
    return dirtyKeys(metrics());
  }

  /** The mirror's and the fold's counters now ({@link ServiceCounters}). */
  ServiceCounters counters() throws Exception {
    long nanos = System.nanoTime();
    return ServiceCounters.parse(metrics(), nanos);
  }

  private String metrics() throws Exception {
    HttpResponse<String> r = get("/metrics");
    if (r.statusCode() != 200) {
      throw new IllegalStateException("/metrics answered " + r.statusCode());
    }
    return r.body();
  }

  /** The sum of the {@code demandfold_mirror_dirty_keys} samples of a Prometheus exposition. */
  static long dirtyKeys(String exposition) {
    long sum = 0;
    boolean seen = false;
    for (String line : exposition.split("\n")) {
      if (line.startsWith(DIRTY)) {
        sum += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        seen = true;
      }
    }
    if (!seen) {
      throw new IllegalStateException("/metrics has no " + DIRTY + "...} sample");
    }
    return sum;
  }

  private HttpResponse<String> get(String path) throws java.io.IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
