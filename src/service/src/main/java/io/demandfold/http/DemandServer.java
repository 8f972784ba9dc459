package io.demandfold.http;

import io.demandfold.http.Router.Lane;
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
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
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
 * closes it. A request whose line and headers have arrived goes one of three ways ({@link Router}),
 * so that the API's requests to other instances, which can wait for seconds, never hold up a health
 * check: {@code /healthz} is answered at once on Jetty's thread; {@code /readyz}, {@code /metrics}
 * and the dashboard's files on two threads of their own; the API on {@link #API_THREADS} threads. A
 * request that finds its threads and their queue full gets 503. Every request must name an allowed
 * host ({@link AllowedHosts}), else it gets 421.
 */
public final class DemandServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DemandServer.class);
  static final int API_THREADS = 4;
  static final int OPS_THREADS = 2;
  private static final int QUEUE = 64;
  private static final AtomicInteger SERVERS = new AtomicInteger();

  private final Server server;
  private final ServerConnector connector;
  private final ConnectionDeadlines deadlines;
  private final ExecutorService api;
  private final ExecutorService ops;
  private final InetAddress boundAddress;
  private final String advertisedHost;
  private LongSupplier clockMs = System::currentTimeMillis;
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
        ConnectionDeadlines.started(
            name + "-deadlines",
            HttpLimits.REQUEST_SECONDS * 1000L,
            HttpLimits.RESPONSE_SECONDS * 1000L);
    Server server = HttpLimits.server(name);
    ServerConnector connector = HttpLimits.connector(server, host, port, deadlines);
    try {
      connector.open();
    } catch (IOException e) {
      deadlines.close();
      String why =
          e.getCause() == null ? e.getMessage() : e.getMessage() + ": " + e.getCause().getMessage();
      throw new IOException("cannot listen on " + host + ":" + port + ": " + why, e);
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
    Peers peers = new Peers(store.self());
    TableSnapshots tables = new TableSnapshots(store, clockMs);
    DemandApi demand = new DemandApi(store, peers, tables);
    SummaryApi summary = new SummaryApi(store, peers, tables);
    QueueApi queue = new QueueApi(store, peers, tables);
    HistoryApi historyApi = new HistoryApi(store, peers, history);
    Health health = new Health(store, etcd);
    Dashboard dashboard = new Dashboard();
    Router router =
        new Router(new AllowedHosts(store.self(), allowedHosts), deadlines, api, ops, registry)
            .route("/", "dashboard", dashboard::serve, false, Lane.OPS)
            .route("/metrics", "metrics", ex -> metrics(ex, registry), true, Lane.OPS)
            .route("/healthz", "healthz", health::healthz, true, Lane.INLINE)
            .route("/readyz", "readyz", health::readyz, true, Lane.OPS)
            .route("/api/v1/demand", "demand", demand::demand, true, Lane.API)
            .route("/api/v1/demand/top", "top", demand::top, true, Lane.API)
            .route("/api/v1/summary", "summary", summary::summary, true, Lane.API)
            .route("/api/v1/queue", "queue", queue::queue, true, Lane.API)
            .route("/api/v1/history", "history", historyApi::history, true, Lane.API);
    server.setHandler(router);
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
