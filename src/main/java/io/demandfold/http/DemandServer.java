package io.demandfold.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.demandfold.core.Keys;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
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
 * http.serve(new StreamsDemandStore(streams, metrics, http.advertisedAddress(), "demand.events"), probe, registry);
 * ...
 * http.close();
 * }</pre>
 *
 * <p>The JDK server's one thread only accepts connections and waits for bytes; {@link
 * HttpLimits#READ_THREADS} threads read requests, so that a client that never finishes its request
 * holds one of them until {@link HttpLimits#REQUEST_SECONDS} closes it, and the server bounds
 * connections, time and sizes ({@link HttpLimits}). Requests then go three ways, so that the API's
 * requests to other instances, which can wait for seconds, never hold up a health check: {@code
 * /healthz} is answered at once on the reading thread; {@code /readyz}, {@code /metrics} and the
 * dashboard's files on two threads of their own; the API on {@link #API_THREADS} threads. A request
 * that finds its threads and their queue full gets 503. Every request must name an allowed host
 * ({@link AllowedHosts}), else it gets 421.
 *
 * <p>Why one class of this size: one route table with the guards every route shares (the Host
 * check, methods, limits, errors); the answers themselves are built by DemandApi, SummaryApi,
 * QueueApi and HistoryApi.
 */
public final class DemandServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DemandServer.class);
  static final int API_THREADS = 4;
  static final int OPS_THREADS = 2;
  private static final int QUEUE = 64;
  private static final AtomicInteger SERVERS = new AtomicInteger();

  /** Which threads answer an endpoint. */
  private enum Lane {
    /** The thread that read the request: quick answers that never wait for anything. */
    INLINE,
    /** Health, metrics and static files. */
    OPS,
    /** The demand API, which may wait for other instances. */
    API
  }

  private final HttpServer server;
  private final ExecutorService read;
  private final ExecutorService api;
  private final ExecutorService ops;
  private final String advertisedHost;
  private LongSupplier clockMs = System::currentTimeMillis;
  private AllowedHosts hosts;
  private boolean serving;
  private DemandHistory history;
  private DemandGauges gauges;

  private DemandServer(
      HttpServer server,
      ExecutorService read,
      ExecutorService api,
      ExecutorService ops,
      String advertisedHost) {
    this.server = server;
    this.read = read;
    this.api = api;
    this.ops = ops;
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
    String limits = HttpLimits.apply();
    HttpServer server;
    try {
      server = HttpServer.create(address, 64);
    } catch (IOException e) {
      throw new IOException("cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
    }
    int n = SERVERS.incrementAndGet();
    // the reading threads read a request and route it: /healthz answered there, the rest handed on
    ExecutorService read =
        pool("demandfold-http-" + n + "-read-", HttpLimits.READ_THREADS, HttpLimits.READ_QUEUE);
    server.setExecutor(read);
    log.debug("http: limits {}", limits);
    InetAddress bound = server.getAddress().getAddress();
    return new DemandServer(
        server,
        read,
        pool("demandfold-http-" + n + "-api-", API_THREADS, QUEUE),
        pool("demandfold-http-" + n + "-ops-", OPS_THREADS, QUEUE),
        bound.isAnyLocalAddress() ? localName() : host);
  }

  private static ExecutorService pool(String name, int threads, int queue) {
    AtomicInteger count = new AtomicInteger();
    return new ThreadPoolExecutor(
        threads,
        threads,
        0,
        TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(queue),
        r -> {
          Thread t = new Thread(r, name + count.incrementAndGet());
          t.setDaemon(true);
          return t;
        },
        new ThreadPoolExecutor.AbortPolicy());
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
  public void serve(DemandStore store, EtcdProbe etcd, PrometheusMeterRegistry registry) {
    serve(store, etcd, registry, List.of());
  }

  /**
   * {@link #serve(DemandStore, EtcdProbe, PrometheusMeterRegistry)}; requests may name in their
   * {@code Host} header an IP address, {@code localhost}, the host of {@code store.self()} or one
   * of {@code allowedHosts} ({@code http.allowed.hosts}).
   */
  public synchronized void serve(
      DemandStore store,
      EtcdProbe etcd,
      PrometheusMeterRegistry registry,
      List<String> allowedHosts) {
    serve(store, etcd, registry, allowedHosts, new DemandHistory(store, System::currentTimeMillis));
    history.start();
  }

  /** {@link #serve(DemandStore, EtcdProbe, PrometheusMeterRegistry)} with a given history. */
  synchronized void serve(
      DemandStore store, EtcdProbe etcd, PrometheusMeterRegistry registry, DemandHistory history) {
    serve(store, etcd, registry, List.of(), history);
  }

  private synchronized void serve(
      DemandStore store,
      EtcdProbe etcd,
      PrometheusMeterRegistry registry,
      List<String> allowedHosts,
      DemandHistory history) {
    if (serving) {
      throw new IllegalStateException("already serving");
    }
    this.history = history;
    this.gauges = new DemandGauges(registry, history);
    hosts = new AllowedHosts(store.self(), allowedHosts);
    Peers peers = new Peers(store.self());
    TableSnapshots tables = new TableSnapshots(store, clockMs);
    DemandApi demand = new DemandApi(store, peers, tables);
    SummaryApi summary = new SummaryApi(store, peers, tables);
    QueueApi queue = new QueueApi(store, peers, tables);
    HistoryApi historyApi = new HistoryApi(store, peers, history);
    Health health = new Health(store, etcd);
    Dashboard dashboard = new Dashboard();
    route("/", "dashboard", registry, dashboard::serve, false, Lane.OPS);
    route("/metrics", "metrics", registry, ex -> metrics(ex, registry), true, Lane.OPS);
    route("/healthz", "healthz", registry, health::healthz, true, Lane.INLINE);
    route("/readyz", "readyz", registry, health::readyz, true, Lane.OPS);
    route("/api/v1/demand", "demand", registry, demand::demand, true, Lane.API);
    route("/api/v1/demand/top", "top", registry, demand::top, true, Lane.API);
    route("/api/v1/summary", "summary", registry, summary::summary, true, Lane.API);
    route("/api/v1/queue", "queue", registry, queue::queue, true, Lane.API);
    route("/api/v1/history", "history", registry, historyApi::history, true, Lane.API);
    server.start();
    serving = true;
    log.info("http: serving the dashboard and API at {}", url());
  }

  /** The clock of the table snapshots' age (tests); before {@link #serve}. */
  synchronized void clock(LongSupplier clockMs) {
    this.clockMs = clockMs;
  }

  /** Stops listening at once (in-flight requests are cut), then the handler threads. */
  @Override
  public synchronized void close() {
    server.stop(0);
    read.shutdownNow();
    api.shutdownNow();
    ops.shutdownNow();
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
      String path,
      String endpoint,
      PrometheusMeterRegistry registry,
      Handler h,
      boolean exact,
      Lane lane) {
    server.createContext(
        path,
        ex -> {
          long t0 = System.nanoTime();
          String host = ex.getRequestHeaders().getFirst("Host");
          if (!hosts.allows(host)) {
            answer(ex, endpoint, registry, t0, path, exact, misdirected(host));
            return;
          }
          if (lane == Lane.INLINE) {
            answer(ex, endpoint, registry, t0, path, exact, h);
            return;
          }
          try {
            (lane == Lane.API ? api : ops)
                .execute(() -> answer(ex, endpoint, registry, t0, path, exact, h));
          } catch (RejectedExecutionException e) {
            answer(ex, endpoint, registry, t0, path, exact, DemandServer::busy);
          }
        });
  }

  private static Handler misdirected(String host) {
    return ex -> {
      throw new ApiException(
          421,
          "this instance does not answer to the host '"
              + Keys.abbreviate(host)
              + "' (Host header); use its address, localhost, or add the name to"
              + " http.allowed.hosts");
    };
  }

  private static void busy(HttpExchange ex) {
    throw new StoreUnavailableException("too many requests in progress; retry", null);
  }

  /** Runs {@code h}, answers its errors as JSON, closes the exchange and counts the request. */
  private static void answer(
      HttpExchange ex,
      String endpoint,
      PrometheusMeterRegistry registry,
      long t0,
      String path,
      boolean exact,
      Handler h) {
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
          .record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
    }
  }

  /** Answers with a JSON error unless a reply has already begun (then only closes). */
  private static void fail(HttpExchange ex, int status, String message) {
    if (ex.getResponseCode() == -1) {
      try {
        Replies.error(ex, status, message);
      } catch (IOException e) {
        log.debug("http: cannot answer {} {}: {}", ex.getRequestMethod(), ex.getRequestURI(), e);
      }
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
