package io.demandfold.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server of an instance (the JDK's {@link HttpServer}): the dashboard at {@code /}, {@code
 * /metrics}, {@code /healthz}, {@code /readyz} and the JSON API under {@code /api/v1/}. Binding and
 * serving are two steps because Kafka Streams must know the bound address ({@code
 * application.server}) before the stores the API reads exist:
 *
 * <pre>{@code
 * DemandServer http = DemandServer.bind("127.0.0.1", 0);
 * KafkaStreams streams = ...; // application.server = http.advertisedAddress()
 * http.serve(new StreamsDemandStore(streams, metrics, http.advertisedAddress()), probe, registry);
 * ...
 * http.close();
 * }</pre>
 */
public final class DemandServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DemandServer.class);
  private static final int THREADS = 4;
  private static final AtomicInteger SERVERS = new AtomicInteger();

  private final HttpServer server;
  private final ExecutorService executor;
  private final String advertisedHost;
  private boolean serving;
  private DemandHistory history;
  private DemandGauges gauges;

  private DemandServer(HttpServer server, ExecutorService executor, String advertisedHost) {
    this.server = server;
    this.executor = executor;
    this.advertisedHost = advertisedHost;
  }

  /**
   * Binds {@code host:port} ({@code port} 0: any free port) without serving yet.
   *
   * @throws IOException naming the address when it cannot be bound
   */
  public static DemandServer bind(String host, int port) throws IOException {
    InetSocketAddress address = new InetSocketAddress(host, port);
    if (address.isUnresolved()) {
      throw new IOException("cannot resolve http.host '" + host + "'");
    }
    HttpServer server;
    try {
      server = HttpServer.create(address, 64);
    } catch (IOException e) {
      throw new IOException("cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
    }
    int n = SERVERS.incrementAndGet();
    AtomicInteger threads = new AtomicInteger();
    ExecutorService executor =
        Executors.newFixedThreadPool(
            THREADS,
            r -> {
              Thread t = new Thread(r, "demandfold-http-" + n + "-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    InetAddress bound = server.getAddress().getAddress();
    return new DemandServer(server, executor, bound.isAnyLocalAddress() ? localName() : host);
  }

  /** The bound socket address. */
  public InetSocketAddress address() {
    return server.getAddress();
  }

  /**
   * {@code host:port} at which other instances reach this one: the bound host, or this machine's
   * name when bound to every interface.
   */
  public String advertisedAddress() {
    return hostPort(advertisedHost, address().getPort());
  }

  /** The base URL on this machine: the bound host, or loopback when bound to every interface. */
  public URI url() {
    InetAddress a = address().getAddress();
    String host =
        a.isAnyLocalAddress()
            ? InetAddress.getLoopbackAddress().getHostAddress()
            : a.getHostAddress();
    return URI.create("http://" + hostPort(host, address().getPort()) + "/");
  }

  /**
   * Starts serving the API over {@code store}, and sampling its totals every 5 s for {@code
   * /api/v1/history} and the demand gauges of {@code registry}; {@code etcd} is null when etcd is
   * not used.
   */
  public synchronized void serve(
      DemandStore store, EtcdProbe etcd, PrometheusMeterRegistry registry) {
    serve(store, etcd, registry, new DemandHistory(store, System::currentTimeMillis));
    history.start();
  }

  /** {@link #serve(DemandStore, EtcdProbe, PrometheusMeterRegistry)} with a given history. */
  synchronized void serve(
      DemandStore store, EtcdProbe etcd, PrometheusMeterRegistry registry, DemandHistory history) {
    if (serving) {
      throw new IllegalStateException("already serving");
    }
    this.history = history;
    this.gauges = new DemandGauges(registry, history);
    Peers peers = new Peers(store.self());
    DemandApi demand = new DemandApi(store, peers);
    SummaryApi summary = new SummaryApi(store, peers);
    HistoryApi historyApi = new HistoryApi(store, peers, history);
    Health health = new Health(store, etcd);
    Dashboard dashboard = new Dashboard();
    route("/", "dashboard", registry, dashboard::serve, false);
    route("/metrics", "metrics", registry, ex -> metrics(ex, registry), true);
    route("/healthz", "healthz", registry, health::healthz, true);
    route("/readyz", "readyz", registry, health::readyz, true);
    route("/api/v1/demand", "demand", registry, demand::demand, true);
    route("/api/v1/demand/top", "top", registry, demand::top, true);
    route("/api/v1/summary", "summary", registry, summary::summary, true);
    route("/api/v1/history", "history", registry, historyApi::history, true);
    server.start();
    serving = true;
    log.info("http: serving the dashboard and API at {}", url());
  }

  /** Stops listening at once (in-flight requests are cut), then the handler threads. */
  @Override
  public synchronized void close() {
    server.stop(0);
    executor.shutdownNow();
    if (history != null) {
      history.close();
    }
    if (gauges != null) {
      gauges.close();
    }
  }

  @FunctionalInterface
  private interface Handler {
    void handle(HttpExchange ex) throws Exception;
  }

  private void route(
      String path, String endpoint, PrometheusMeterRegistry registry, Handler h, boolean exact) {
    server.createContext(
        path,
        ex -> {
          long t0 = System.nanoTime();
          try {
            Replies.requireGet(ex);
            if (exact && !ex.getRequestURI().getPath().equals(path)) {
              throw ApiException.notFound("no such page: " + ex.getRequestURI().getPath());
            }
            h.handle(ex);
          } catch (ApiException e) {
            fail(ex, e.status, e.getMessage());
          } catch (StoreUnavailableException e) {
            ex.getResponseHeaders().set("Retry-After", "1");
            fail(ex, 503, e.getMessage());
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail(ex, 503, "interrupted: the instance is stopping");
          } catch (Exception e) {
            log.warn("http: {} {} failed", ex.getRequestMethod(), ex.getRequestURI(), e);
            fail(ex, 500, "internal error: " + e);
          } finally {
            ex.close();
            Timer.builder("demandfold.http.requests")
                .description("HTTP requests served, by endpoint and status")
                .tag("endpoint", endpoint)
                .tag("status", String.valueOf(ex.getResponseCode()))
                .register(registry)
                .record(System.nanoTime() - t0, java.util.concurrent.TimeUnit.NANOSECONDS);
          }
        });
  }

  /** Answers with a JSON error unless a reply has already begun (then only closes). */
  private static void fail(HttpExchange ex, int status, String message) throws IOException {
    if (ex.getResponseCode() == -1) {
      Replies.error(ex, status, message);
    }
  }

  private static void metrics(HttpExchange ex, PrometheusMeterRegistry registry)
      throws IOException {
    Replies.query(ex, java.util.Set.of());
    Replies.send(
        ex,
        200,
        "text/plain; version=0.0.4; charset=utf-8",
        registry.scrape().getBytes(StandardCharsets.UTF_8));
  }

  private static String localName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return InetAddress.getLoopbackAddress().getHostAddress();
    }
  }

  private static String hostPort(String host, int port) {
    return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
  }
}
