package io.demandfold.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.Events;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The server on loopback while 100 connections each send a request one byte a second, reopened as
 * the server closes them: every liveness and readiness probe answers within the 1 s a Kubernetes
 * probe gives it, on a connection of its own, and the API still answers.
 */
class SlowSendersTest {
  private static final int SLOW = 100;
  private static final int PROBES = 120;

  /**
   * The probe's own timeout: the JDK server held each of its 16 reading threads up to 10 s per slow
   * sender, so every probe failed under any bound below that; 3 s keeps a busy CI machine from
   * failing a probe the server answered. The slowest probe is printed, for the 1 s goal
   * (docs/http-api.md).
   */
  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(3);

  private static final Duration API_TIMEOUT = Duration.ofSeconds(5);
  private static final byte[] SLOW_HEAD =
      "GET /api/v1/summary HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
          .getBytes(StandardCharsets.US_ASCII);

  private DemandServer server;
  private Trickle trickle;

  @AfterEach
  void close() throws Exception {
    if (trickle != null) {
      trickle.halt();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void shouldAnswerEveryProbeWhileAHundredConnectionsTrickleAByteASecond() throws Exception {
    server = DemandServer.bind("127.0.0.1", 0);
    FakeStore store = new FakeStore().hold("orders", Events.writer("s1", 20, 1, 1_000L));
    store.self = server.advertisedAddress();
    server.serve(store, null, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    InetSocketAddress at = server.address();
    // each path answered once before: the first request of a JVM loads classes (a second, here)
    for (String path : List.of("/healthz", "/readyz", "/api/v1/summary")) {
      assertThat(get(at, path, Duration.ofSeconds(30))).as(path).isEqualTo("200");
    }
    trickle = new Trickle(at);
    trickle.start();
    trickle.awaitOpen(SLOW);

    List<String> failed = new ArrayList<>();
    long slowestMs = 0;
    int probes = 0;
    int api = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    // PROBES probes, and every slow sender closed by the server at least once (and reopened)
    while ((probes < PROBES || trickle.reopened.get() < SLOW)
        && System.nanoTime() - deadline < 0
        && trickle.failure.get() == null) {
      String path = probes % 2 == 0 ? "/healthz" : "/readyz";
      long t0 = System.nanoTime();
      String status = get(at, path, PROBE_TIMEOUT);
      slowestMs = Math.max(slowestMs, (System.nanoTime() - t0) / 1_000_000);
      probes++;
      if (!status.equals("200")) {
        failed.add(path + " at probe " + probes + ": " + status);
      }
      if (probes % 10 == 0) {
        api++;
        String summary = get(at, "/api/v1/summary", API_TIMEOUT);
        if (!summary.equals("200")) {
          failed.add("/api/v1/summary at probe " + probes + ": " + summary);
        }
      }
      Thread.sleep(200);
    }
    assertThat(trickle.failure.get()).as("the slow senders' thread").isNull();
    assertThat(failed)
        .as(
            "of %d probes and %d API requests while %d connections trickled (%d reopened);"
                + " slowest probe %d ms",
            probes, api, SLOW, trickle.reopened.get(), slowestMs)
        .isEmpty();
    assertThat(probes).as("probes within 120 s").isGreaterThanOrEqualTo(PROBES);
    assertThat(trickle.reopened.get())
        .as("slow senders closed (each must send its request within %d s)", 10)
        .isGreaterThanOrEqualTo(SLOW);
    assertThat(server.slowConnectionsClosed())
        .as("connections the server closed for their slow requests")
        .isGreaterThanOrEqualTo(SLOW);
    System.out.printf(
        "SlowSendersTest: %d probes, %d API requests, slowest probe %d ms, %d slow senders"
            + " reopened%n",
        probes, api, slowestMs, trickle.reopened.get());
  }

  /**
   * The status of a GET on a connection of its own, or why there is none within {@code timeout}
   * (connect, send and the whole answer).
   */
  private static String get(InetSocketAddress at, String path, Duration timeout) {
    long end = System.nanoTime() + timeout.toNanos();
    try (Socket s = new Socket()) {
      s.connect(at, (int) timeout.toMillis());
      s.getOutputStream()
          .write(
              ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      StringBuilder got = new StringBuilder();
      InputStream in = s.getInputStream();
      byte[] buf = new byte[4096];
      while (true) {
        long leftMs = (end - System.nanoTime()) / 1_000_000;
        if (leftMs <= 0) {
          throw new SocketTimeoutException();
        }
        s.setSoTimeout((int) leftMs);
        int n = in.read(buf);
        if (n < 0) {
          break;
        }
        got.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
      }
      String reply = got.toString();
      return reply.startsWith("HTTP/1.1 ") && reply.length() >= 12
          ? reply.substring(9, 12)
          : "not an HTTP answer: '" + reply + "'";
    } catch (SocketTimeoutException e) {
      return "no whole answer within " + timeout.toMillis() + " ms";
    } catch (IOException e) {
      return "failed: " + e;
    }
  }

  /**
   * {@link #SLOW} connections, each sending a request that never ends one byte a second, each
   * reopened when the server closes it.
   */
  private static final class Trickle extends Thread {
    private final InetSocketAddress at;
    private final SocketChannel[] channels = new SocketChannel[SLOW];
    private final int[] sent = new int[SLOW];
    final AtomicInteger opened = new AtomicInteger();
    final AtomicInteger reopened = new AtomicInteger();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean stopping;

    Trickle(InetSocketAddress at) {
      super("slow-senders");
      setDaemon(true);
      this.at = at;
    }

    @Override
    public void run() {
      ByteBuffer drain = ByteBuffer.allocate(4096);
      try {
        while (!stopping) {
          for (int i = 0; i < SLOW; i++) {
            if (channels[i] != null && closedByServer(channels[i], drain)) {
              channels[i].close();
              channels[i] = null;
              reopened.incrementAndGet();
            }
            if (channels[i] == null) {
              channels[i] = SocketChannel.open(at);
              channels[i].configureBlocking(false);
              sent[i] = 0;
              opened.incrementAndGet();
            }
            byte b = sent[i] < SLOW_HEAD.length ? SLOW_HEAD[sent[i]] : (byte) 'a';
            try {
              channels[i].write(ByteBuffer.wrap(new byte[] {b}));
              sent[i]++;
            } catch (IOException e) {
              // closed by the server since the check: reopened on the next round
            }
          }
          Thread.sleep(1000);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (Throwable t) {
        failure.set(t);
      } finally {
        for (SocketChannel c : channels) {
          try {
            if (c != null) {
              c.close();
            }
          } catch (IOException e) {
            // closing a test socket
          }
        }
      }
    }

    private static boolean closedByServer(SocketChannel c, ByteBuffer drain) {
      try {
        for (int n; (n = c.read(drain.clear())) != 0; ) {
          if (n < 0) {
            return true;
          }
        }
        return false;
      } catch (IOException e) {
        return true;
      }
    }

    void awaitOpen(int n) throws InterruptedException {
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (opened.get() < n && failure.get() == null) {
        assertThat(System.nanoTime() - end).as("60 s to open %d slow senders", n).isNegative();
        Thread.sleep(20);
      }
      assertThat(failure.get()).as("the slow senders' thread").isNull();
    }

    void halt() throws InterruptedException {
      stopping = true;
      interrupt();
      join(10_000);
    }
  }
}
