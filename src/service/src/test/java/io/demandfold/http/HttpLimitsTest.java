package io.demandfold.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.UnixOperatingSystemMXBean;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The server on loopback against clients that hold connections: idle ones, one that never finishes
 * its request (slowloris) and requests over the size limits. Client timeouts here are deadlines of
 * liveness, not measures of speed.
 */
class HttpLimitsTest {
  private static final int IDLE = 1000;
  private static final Duration LIVE = Duration.ofSeconds(5);

  private final List<Socket> sockets = new ArrayList<>();
  private DemandServer server;

  @AfterEach
  void close() {
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException e) {
        // closing a test socket
      }
    }
    if (server != null) {
      server.close();
    }
  }

  private DemandServer serve() throws IOException {
    server = DemandServer.bind("127.0.0.1", 0);
    FakeStore store = new FakeStore();
    store.self = server.advertisedAddress();
    server.serve(store, null, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    return server;
  }

  private Socket open() throws IOException {
    Socket s = new Socket();
    sockets.add(s);
    s.connect(new InetSocketAddress("127.0.0.1", server.address().getPort()), 5000);
    return s;
  }

  @Test
  void shouldAnswerHealthAndMetricsWhileIdleConnectionsAndASlowlorisAreOpen() throws Exception {
    long fds =
        ((UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getMaxFileDescriptorCount();
    assertThat(fds).as("file descriptors this JVM may open (ulimit -n)").isGreaterThan(3 * IDLE);
    serve();
    for (int i = 0; i < IDLE; i++) {
      open();
    }
    Socket slow = open();
    long sentAt = System.nanoTime();
    slow.getOutputStream()
        .write("GET /healthz HTTP/1.1\r\nHost: 127.0.0".getBytes(StandardCharsets.US_ASCII));
    slow.getOutputStream().flush();

    HttpClient client = HttpClient.newBuilder().connectTimeout(LIVE).build();
    for (String path : List.of("healthz", "metrics", "readyz", "healthz")) {
      HttpResponse<String> r =
          client.send(
              HttpRequest.newBuilder(server.url().resolve(path)).timeout(LIVE).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(path).isEqualTo(200);
    }

    slow.setSoTimeout((HttpLimits.REQUEST_SECONDS + 15) * 1000);
    assertThat(readToEnd(slow)).as("what the server sent the slowloris before closing").isEmpty();
    long heldMs = (System.nanoTime() - sentAt) / 1_000_000;
    assertThat(heldMs)
        .as("the slowloris is closed by the request timeout, not before")
        .isGreaterThanOrEqualTo((HttpLimits.REQUEST_SECONDS - 1) * 1000L);

    long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
    int closed = 0;
    for (Socket s : sockets.subList(0, IDLE)) {
      long leftMs = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
      s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, leftMs));
      if (readToEnd(s) != null) {
        closed++;
      }
    }
    assertThat(closed).as("idle connections the server closed").isEqualTo(IDLE);
  }

  @Test
  void shouldCloseOrRefuseRequestsOverTheHeaderLimits() throws Exception {
    serve();
    String big = "a".repeat(HttpLimits.MAX_HEADER_BYTES + 1);
    StringBuilder many = new StringBuilder();
    for (int i = 0; i <= HttpLimits.MAX_HEADERS; i++) {
      many.append("X-H").append(i).append(": v\r\n");
    }
    for (String request :
        List.of(
            "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + big + "\r\n\r\n",
            "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + many + "\r\n",
            "GET /healthz?q=" + big + big + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")) {
      Socket s = open();
      s.setSoTimeout((HttpLimits.REQUEST_SECONDS + 15) * 1000);
      OutputStream out = s.getOutputStream();
      try {
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
      } catch (SocketException e) {
        continue; // closed while sending: refused
      }
      String reply = readToEnd(s);
      assertThat(reply).as("a reply, or the end of the stream").isNotNull();
      assertThat(reply).as(request.substring(0, 40)).doesNotStartWith("HTTP/1.1 200");
      if (!reply.isEmpty()) {
        assertThat(reply).matches("(?s)HTTP/1\\.1 (400|413|414|431) .*");
      }
    }
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(server.url().resolve("healthz")).timeout(LIVE).build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
  }

  /**
   * What the server sends until it closes the connection ("" when it sends nothing), or {@code
   * null} when it keeps it open past the socket's timeout.
   */
  private static String readToEnd(Socket s) throws IOException {
    StringBuilder got = new StringBuilder();
    byte[] buf = new byte[8192];
    InputStream in = s.getInputStream();
    try {
      for (int n; (n = in.read(buf)) != -1; ) {
        got.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
      }
    } catch (SocketTimeoutException e) {
      return null;
    } catch (SocketException e) {
      // reset by the server: closed
    }
    return got.toString();
  }
}
