package io.demandfold.http;

import io.demandfold.core.Keys;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server of an instance (Jetty 12, no servlets): the dashboard at {@code /}, {@code
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
 * <p>Jetty reads requests and writes replies without a thread per connection, so a client that
 * sends or reads slowly holds a connection, not a thread, until a limit of {@link HttpLimits}
 * closes it. A request whose line and headers have arrived goes one of three ways, so that the
 * API's requests to other instances, which can wait for seconds, never hold up a health check:
 * {@code /healthz} is answered at once on Jetty's thread; {@code /readyz}, {@code /metrics} and the
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
    /** Jetty's thread that parsed the request: quick answers that never wait for anything. */
    INLINE,
    /** Health, metrics and static files. */
    OPS,
    /** The demand API, which may wait for other instances. */
    API
  }

  @FunctionalInterface
  private interface Answer {
    void handle(Exchange ex) throws Exception;
  }

  /** An endpoint: requests whose path starts with {@code path} (the longest such wins). */
  private record Route(String path, String endpoint, Answer answer, boolean exact, Lane lane) {}

  private final Server server;
  private final ServerConnector connector;
  private final ConnectionDeadlines deadlines;
  private final ExecutorService api;
  private final ExecutorService ops;
  private final InetAddress boundAddress;
  private final String advertisedHost;
  private final List<Route> routes = new ArrayList<>();
  private LongSupplier clockMs = System::currentTimeMillis;
  private PrometheusMeterRegistry registry;
  private AllowedHosts hosts;
  private boolean serving;
  private DemandHistory history;
  private DemandGauges gauges;

  private DemandServer(
      Server server,
      ServerConnector connector,
      ConnectionDeadlines deadlines,
      String name,
      InetAddress boundAddress,
      String advertisedHost) {
    this.server = server;
    this.connector = connector;
    this.deadlines = deadlines;
    this.api = pool(name + "-api-", API_THREADS, QUEUE);
    this.ops = pool(name + "-ops-", OPS_THREADS, QUEUE);
    this.boundAddress = boundAddress;
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
    String name = "demandfold-http-" + SERVERS.incrementAndGet();
    ConnectionDeadlines deadlines =
        new ConnectionDeadlines(
            name + "-deadlines",
            HttpLimits.REQUEST_SECONDS * 1000L,
            HttpLimits.RESPONSE_SECONDS * 1000L);
    Server server = HttpLimits.server(name);
    ServerConnector connector = HttpLimits.connector(server, host, port, deadlines);
    try {
      connector.open();
    } catch (IOException e) {
      deadlines.close();
      throw new IOException("cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
    }
    InetAddress bound = address.getAddress();
    return new DemandServer(
        server, connector, deadlines, name, bound, bound.isAnyLocalAddress() ? localName() : host);
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
    return new InetSocketAddress(boundAddress, connector.getLocalPort());
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
    this.registry = registry;
    route("/", "dashboard", dashboard::serve, false, Lane.OPS);
    route("/metrics", "metrics", ex -> metrics(ex, registry), true, Lane.OPS);
    route("/healthz", "healthz", health::healthz, true, Lane.INLINE);
    route("/readyz", "readyz", health::readyz, true, Lane.OPS);
    route("/api/v1/demand", "demand", demand::demand, true, Lane.API);
    route("/api/v1/demand/top", "top", demand::top, true, Lane.API);
    route("/api/v1/summary", "summary", summary::summary, true, Lane.API);
    route("/api/v1/queue", "queue", queue::queue, true, Lane.API);
    route("/api/v1/history", "history", historyApi::history, true, Lane.API);
    routes.sort(Comparator.comparingInt((Route r) -> r.path().length()).reversed());
    server.setHandler(new Router());
    server.setErrorHandler(new JsonErrors());
    try {
      server.start();
    } catch (Exception e) {
      throw new IllegalStateException("http: cannot serve at " + url() + ": " + e, e);
    }
    serving = true;
    log.info("http: serving the dashboard and API at {}", url());
  }

  /** The clock of the table snapshots' age (tests); before {@link #serve}. */
  synchronized void clock(LongSupplier clockMs) {
    this.clockMs = clockMs;
  }

  /** Connections closed for sending a request or reading a reply too slowly (tests). */
  long slowConnectionsClosed() {
    return deadlines.closed();
  }

  /** Stops listening at once (in-flight requests are cut), then the handler threads. */
  @Override
  public synchronized void close() {
    try {
      server.stop();
    } catch (Exception e) {
      log.warn("http: stopping the server at {}", url(), e);
    }
    connector.close(); // bound but never served: the server did not start it
    deadlines.close();
    api.shutdownNow();
    ops.shutdownNow();
    if (history != null) {
      history.close();
    }
    if (gauges != null) {
      gauges.close();
    }
  }

  private void route(String path, String endpoint, Answer answer, boolean exact, Lane lane) {
    routes.add(new Route(path, endpoint, answer, exact, lane));
  }

  /** Sends each request whose line and headers have arrived to its route's lane. */
  private final class Router extends Handler.Abstract {
    @Override
    public boolean handle(Request request, Response response, Callback callback) {
      long t0 = System.nanoTime();
      Connection c = request.getConnectionMetaData().getConnection();
      deadlines.answering(c);
      Callback done =
          new Callback() {
            @Override
            public void succeeded() {
              deadlines.answered(c);
              callback.succeeded();
            }

            @Override
            public void failed(Throwable x) {
              deadlines.answered(c);
              callback.failed(x);
            }
          };
      Exchange ex = new Exchange(request, response, done, () -> deadlines.writing(c));
      String path = ex.path();
      // the longest prefix; "/" (the dashboard, which answers 404 to what it does not hold) last
      Route route =
          routes.stream()
              .filter(r -> path.startsWith(r.path()))
              .findFirst()
              .orElse(routes.get(routes.size() - 1));
      String host = ex.header("Host");
      if (!hosts.allows(host)) {
        answer(ex, route, t0, misdirected(host));
      } else if (route.lane() == Lane.INLINE) {
        answer(ex, route, t0, route.answer());
      } else {
        try {
          (route.lane() == Lane.API ? api : ops)
              .execute(() -> answer(ex, route, t0, route.answer()));
        } catch (RejectedExecutionException e) {
          answer(ex, route, t0, DemandServer::busy);
        }
      }
      return true;
    }
  }

  private static Answer misdirected(String host) {
    return ex -> {
      throw new ApiException(
          421,
          "this instance does not answer to the host '"
              + Keys.abbreviate(host)
              + "' (Host header); use its address, localhost, or add the name to"
              + " http.allowed.hosts");
    };
  }

  private static void busy(Exchange ex) {
    throw new StoreUnavailableException("too many requests in progress; retry", null);
  }

  /** Runs {@code h}, answers its errors as JSON and counts the request. */
  private void answer(Exchange ex, Route route, long t0, Answer h) {
    try {
      if (ex.headerCount() > HttpLimits.MAX_HEADERS) {
        ex.setHeader("Connection", "close");
        throw new ApiException(
            431, "more than " + HttpLimits.MAX_HEADERS + " header fields in the request");
      }
      Replies.requireGet(ex);
      if (route.exact() && !ex.path().equals(route.path())) {
        throw ApiException.notFound("no such page: " + ex.path());
      }
      h.handle(ex);
    } catch (ApiException e) {
      fail(ex, e.status, e.getMessage());
    } catch (StoreUnavailableException e) {
      ex.setHeader("Retry-After", "1");
      fail(ex, 503, e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      fail(ex, 503, "interrupted: the instance is stopping");
    } catch (Exception e) {
      log.warn("http: {} {} failed", ex.method(), ex.path(), e);
      fail(ex, 500, "internal error: " + e);
    } finally {
      if (!ex.sent()) {
        fail(ex, 500, "internal error: no reply");
      }
      Timer.builder("demandfold.http.requests")
          .description("HTTP requests served, by endpoint and status")
          .tag("endpoint", route.endpoint())
          .tag("status", String.valueOf(ex.status()))
          .register(registry)
          .record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
    }
  }

  /** Answers with a JSON error unless a reply has already begun. */
  private static void fail(Exchange ex, int status, String message) {
    if (!ex.sent()) {
      try {
        Replies.error(ex, status, message);
      } catch (IOException | RuntimeException e) {
        log.debug("http: cannot answer {} {}: {}", ex.method(), ex.path(), e.toString());
        ex.abandon(e);
      }
    }
  }

  private static void metrics(Exchange ex, PrometheusMeterRegistry registry) {
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
