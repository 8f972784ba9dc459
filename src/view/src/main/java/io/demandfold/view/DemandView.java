package io.demandfold.view;

import io.demandfold.core.DemandClasses;
import io.demandfold.core.Keys;
import io.demandfold.core.Limits;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.mirror.EtcdSettings;
import io.demandfold.mirror.PrefixScan;
import io.etcd.jetcd.Client;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.File;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A live, ranked view of the demand demandfold mirrors into etcd, for a maintenance scheduler:
 * every table record of a prefix, current within a round trip of etcd.
 *
 * <p>{@link #start()} loads a consistent snapshot of the table records (and of the shard records of
 * the targets given to {@link Builder#shardsOf}) at one revision, in pages within a byte budget,
 * then watches from the next revision, with {@code requireLeader} and progress requests. Every
 * event of every revision (every key of a transaction) is applied once and in order, across
 * reconnects and leader changes: a watch that fails, ends or stalls is restarted from the revision
 * after the last one applied. When it cannot go on (that revision compacted, a backlog larger than
 * the watch's client or the queue to the view's thread takes, etcd restored from an older snapshot
 * or wiped), the view loads a fresh snapshot and tells its listeners ({@link
 * DemandListener#resynced}), never silently. Records are read with the project's codecs; a record
 * of a newer schema or one that does not decode is listed in {@link #refused()} and counted, never
 * read as zero demand.
 *
 * <pre>{@code
 * try (DemandView view = DemandView.builder().endpoints(List.of("http://etcd:2379")).build()) {
 *   view.addListener(c -> System.out.println(c.target() + " -> " + c.current()));
 *   view.start();
 *   for (TableDemand t : view.top(10, DemandView.Order.URGENCY)) { ... }
 * }
 * }</pre>
 *
 * <p>Reads are thread-safe and see the view between two revisions. Listeners are called on the
 * view's one thread, in revision order. Meters go to {@link Builder#meterRegistry} ({@link
 * ViewMeters}).
 *
 * <p>The public face (reads, orders, the builder with a check and a message per argument); the work
 * is done by ViewState, ViewLoop, ViewWatch, ViewRewinds and ViewSnapshot.
 */
public final class DemandView implements AutoCloseable {
  /** The default byte budget of a snapshot page: 1 MiB. */
  public static final long DEFAULT_PAGE_BYTES = 1 << 20;

  /** The default bound of the bytes waiting for the view's thread: 64 MiB. */
  public static final long DEFAULT_QUEUE_BYTES = 64L << 20;

  /** How {@link #top} ranks; ties go by target in UTF-8 byte order. */
  public enum Order {
    /**
     * {@link io.demandfold.core.Urgency} class first (critical, due, pending), then more pending
     * generations, then the earlier exact oldest pending time, then more pending bytes ({@link
     * DemandClasses#urgencyOrder}).
     */
    URGENCY,
    /** Most pending generations first. */
    PENDING_GENERATIONS,
    /** Most pending bytes first. */
    PENDING_BYTES,
    /** Oldest pending time first, of any bound; tables without a known time last. */
    OLDEST_PENDING;

    /** This order over tables (idle ones, which {@link #top} leaves out, last by URGENCY). */
    public Comparator<TableDemand> comparator() {
      Comparator<TableDemand> first;
      switch (this) {
        case URGENCY:
          return Comparator.comparing(TableDemand::urgency)
              .thenComparing(
                  DemandClasses.withinClassOrder(TableDemand::view, TableDemand::target));
        case PENDING_GENERATIONS:
          first = Comparator.comparingLong(TableDemand::pendingGenerations).reversed();
          break;
        case PENDING_BYTES:
          first = Comparator.comparingLong(TableDemand::pendingBytes).reversed();
          break;
        default:
          first = Comparator.comparingLong(t -> t.oldestPendingMs().orElse(Long.MAX_VALUE));
      }
      return first.thenComparing(TableDemand::target, Keys.UTF8_ORDER);
    }
  }

  /**
   * Whether the view's watch works: {@code live} since {@code sinceMs} (wall clock), or not since
   * then, for {@code problem}.
   */
  public record Status(boolean live, long sinceMs, String problem) {}

  private final Builder b;
  private final EtcdLayout layout;
  private final ViewState state;
  private final CopyOnWriteArrayList<DemandListener> listeners = new CopyOnWriteArrayList<>();
  private Client client;
  private ViewSnapshot snapshot;
  private ViewWatch watch;
  private ViewLoop loop;
  private Thread thread;
  private boolean started;
  private volatile boolean closed;

  private DemandView(Builder b) {
    this.b = b;
    this.layout = new EtcdLayout(b.prefix);
    this.state =
        new ViewState(new ViewRecords(layout, b.shardsOf), b.shardsOf, b.classes, b.clock::millis);
  }

  /** A builder; give it {@link Builder#endpoints} or {@link Builder#client}. */
  public static Builder builder() {
    return new Builder();
  }

  /** Adds a listener; it hears of the changes applied from now on. */
  public void addListener(DemandListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  public void removeListener(DemandListener listener) {
    listeners.remove(listener);
  }

  /**
   * Loads the snapshot (blocking, within the request timeout of each page) and starts watching.
   *
   * @throws IllegalStateException saying why when etcd cannot be read, or when started before
   */
  public synchronized void start() {
    if (started || closed) {
      throw new IllegalStateException("a DemandView starts once, before close()");
    }
    started = true;
    client = b.client != null ? b.client : b.etcdSettings().connect();
    snapshot =
        new ViewSnapshot(client.getKVClient(), layout, b.shardsOf, b.pageBytes, b.requestTimeout);
    ViewSnapshot.Loaded loaded;
    try {
      loaded = snapshot.first(b.describeEtcd());
    } catch (IllegalStateException e) {
      close();
      throw e;
    }
    state.replace(loaded.revision(), loaded.kvs());
    String watched =
        b.shardsOf.isEmpty() ? layout.tableRecordsPrefix() : layout.prefix() + "/demand";
    byte[] from = watched.getBytes(StandardCharsets.UTF_8);
    watch = new ViewWatch(client.getWatchClient(), from, PrefixScan.prefixEnd(from), b.queueBytes);
    loop =
        new ViewLoop(
            state,
            watch,
            snapshot,
            b.registry,
            listeners,
            b.progressInterval.toMillis(),
            b.clock::millis,
            layout.prefix());
    loop.begin(loaded);
    thread = new Thread(loop, "demandfold-view" + layout.prefix());
    thread.setDaemon(true);
    thread.start();
  }

  /** The etcd revision the view is current as of. */
  public long revision() {
    return state.revision();
  }

  /** Every readable table record, by target: an immutable copy, classed at the time of the call. */
  public Map<String, TableDemand> tables() {
    return state.tables();
  }

  /** One target's demand, if its table record is held and readable. */
  public Optional<TableDemand> table(String target) {
    return Optional.ofNullable(state.table(target));
  }

  /** The first {@code n} tables with pending generations by {@code order}. */
  public List<TableDemand> top(int n, Order order) {
    if (n < 0) {
      throw new IllegalArgumentException("n must be >= 0, got " + n);
    }
    return state.top(n, order.comparator());
  }

  /**
   * The shard records of {@code target} in shard order: from memory for a target given to {@link
   * Builder#shardsOf}, else read from etcd now (blocking).
   *
   * @throws IllegalStateException when etcd cannot be read, or the view is not started
   */
  public List<ShardDemand> shards(String target) {
    if (target == null
        || target.isEmpty()
        || target.getBytes(StandardCharsets.UTF_8).length > Limits.MAX_TARGET_BYTES) {
      throw new IllegalArgumentException(
          "target must be 1.." + Limits.MAX_TARGET_BYTES + " UTF-8 bytes");
    }
    List<ShardDemand> held = state.shards(target);
    if (held != null) {
      return held;
    }
    ViewSnapshot read;
    synchronized (this) {
      if (!started || closed) {
        throw new IllegalStateException("shards() reads etcd: start() the view first");
      }
      read = snapshot;
    }
    return read.shards(target);
  }

  /** Keys under the prefix the view does not read, and why (a newer schema, unreadable). */
  public Map<String, String> refused() {
    return state.refused();
  }

  /**
   * Whether the watch works now; before {@link #start}, not live. A view whose thread ended on an
   * error says {@code "failed: ..."} from then on: it follows etcd no more.
   */
  public Status status() {
    ViewLoop l = loop;
    return l == null ? new Status(false, 0, "not started") : l.status();
  }

  /** The classes tables are ranked in. */
  public DemandClasses classes() {
    return b.classes;
  }

  /** The etcd prefix watched. */
  public String prefix() {
    return layout.prefix();
  }

  /** Stops the watch and the thread; closes the etcd client unless the caller gave it. */
  @Override
  public void close() {
    Thread t;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      t = thread;
      if (loop != null) {
        loop.stop();
      }
    }
    if (t != null) {
      t.interrupt();
      if (t != Thread.currentThread()) {
        try {
          t.join(10_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
    if (watch != null) {
      watch.close();
    }
    if (loop != null) {
      loop.meters().close();
    }
    if (client != null && b.client == null) {
      client.close();
    }
  }

  /** Builds a {@link DemandView}; every option has a default but where etcd is. */
  public static final class Builder {
    private List<URI> endpoints;
    private Client client;
    private String user;
    private String password;
    private File caFile;
    private File certFile;
    private File keyFile;
    private Duration requestTimeout = Duration.ofSeconds(5);
    private String prefix = "/demandfold";
    private long pageBytes = DEFAULT_PAGE_BYTES;
    private Set<String> shardsOf = Set.of();
    private DemandClasses classes = DemandClasses.defaults();
    private MeterRegistry registry = new SimpleMeterRegistry();
    private Duration progressInterval = Duration.ofSeconds(1);
    private Clock clock = Clock.systemUTC();
    private long queueBytes = DEFAULT_QUEUE_BYTES;

    private Builder() {}

    /** etcd's client URLs, all {@code http://} or all {@code https://}; the view opens a client. */
    public Builder endpoints(List<String> endpoints) {
      if (endpoints == null || endpoints.isEmpty()) {
        throw new IllegalArgumentException("endpoints must name at least one etcd URL");
      }
      List<URI> uris = new ArrayList<>();
      for (String e : endpoints) {
        URI u;
        try {
          u = URI.create(Objects.requireNonNull(e, "endpoint").trim());
        } catch (IllegalArgumentException x) {
          throw new IllegalArgumentException("endpoints: '" + e + "' is not a URL", x);
        }
        if (u.getScheme() == null || u.getHost() == null) {
          throw new IllegalArgumentException(
              "endpoints: '" + e + "' is not a URL such as http://127.0.0.1:2379");
        }
        uris.add(u);
      }
      this.endpoints = List.copyOf(uris);
      return this;
    }

    /** The same settings as the service ({@code etcd.*}): endpoints, TLS, user, timeout. */
    public Builder settings(EtcdSettings settings) {
      Objects.requireNonNull(settings, "settings");
      this.endpoints = settings.endpoints();
      this.user = settings.user();
      this.password = settings.password();
      this.caFile = settings.caFile();
      this.certFile = settings.certFile();
      this.keyFile = settings.keyFile();
      this.requestTimeout = settings.requestTimeout();
      return this;
    }

    /** A jetcd client of the caller's, who keeps it (the view does not close it). */
    public Builder client(Client client) {
      this.client = Objects.requireNonNull(client, "client");
      return this;
    }

    /** etcd user (with {@link #password}); default none. */
    public Builder user(String user) {
      this.user = user;
      return this;
    }

    public Builder password(String password) {
      this.password = password;
      return this;
    }

    /**
     * TLS: a PEM CA to trust ({@code null}: the JVM's trust store), and a PEM client certificate
     * and PKCS#8 key ({@code null} both: none).
     */
    public Builder tls(File caFile, File certFile, File keyFile) {
      if ((certFile == null) != (keyFile == null)) {
        throw new IllegalArgumentException("tls: a client certificate needs its key, and back");
      }
      this.caFile = caFile;
      this.certFile = certFile;
      this.keyFile = keyFile;
      return this;
    }

    /** Bound on each etcd request (a snapshot page); default 5 s, at least 1 ms. */
    public Builder requestTimeout(Duration timeout) {
      if (timeout == null || timeout.toMillis() < 1) {
        throw new IllegalArgumentException("requestTimeout must be >= 1 ms, got " + timeout);
      }
      this.requestTimeout = timeout;
      return this;
    }

    /**
     * The etcd prefix the service writes under ({@code etcd.prefix}); default {@code /demandfold}.
     */
    public Builder prefix(String prefix) {
      this.prefix = new EtcdLayout(prefix).prefix();
      return this;
    }

    /** The byte budget of a snapshot page (default 1 MiB): a page over it is read again smaller. */
    public Builder pageBytes(long pageBytes) {
      if (pageBytes < 1024) {
        throw new IllegalArgumentException("pageBytes must be >= 1024, got " + pageBytes);
      }
      this.pageBytes = pageBytes;
      return this;
    }

    /**
     * Targets whose shard records the view holds and watches too ({@link DemandView#shards} answers
     * them from memory); the view then watches all of {@code <prefix>/demand}, shard records
     * included, and keeps those of these targets. Default none.
     */
    public Builder shardsOf(Set<String> targets) {
      Objects.requireNonNull(targets, "targets");
      for (String t : targets) {
        if (t == null || t.isEmpty()) {
          throw new IllegalArgumentException("shardsOf: a target must not be empty");
        }
      }
      this.shardsOf = Set.copyOf(targets);
      return this;
    }

    /** The urgency classes and thresholds; default {@link DemandClasses#defaults()}. */
    public Builder classes(DemandClasses classes) {
      this.classes = Objects.requireNonNull(classes, "classes");
      return this;
    }

    /** Where the view's meters go. */
    public Builder meterRegistry(MeterRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /**
     * How often the view asks etcd for its watch's progress (default 1 s, at least 10 ms); a watch
     * silent for three intervals is restarted.
     */
    public Builder progressInterval(Duration interval) {
      if (interval == null || interval.toMillis() < 10) {
        throw new IllegalArgumentException("progressInterval must be >= 10 ms, got " + interval);
      }
      this.progressInterval = interval;
      return this;
    }

    /** The clock that ages tables for their class; default the system clock. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * The most bytes of watch responses waiting for the view's thread (default 64 MiB, at least 1
     * KiB; one response is taken whatever its size): a listener slower than etcd's writes that lets
     * more pile up makes the view drop them and load a fresh snapshot.
     */
    public Builder queueBytes(long queueBytes) {
      if (queueBytes < 1024) {
        throw new IllegalArgumentException("queueBytes must be >= 1024, got " + queueBytes);
      }
      this.queueBytes = queueBytes;
      return this;
    }

    /**
     * The view, not started.
     *
     * @throws IllegalStateException when neither or both of endpoints and client are given
     */
    public DemandView build() {
      if ((endpoints == null) == (client == null)) {
        throw new IllegalStateException(
            "DemandView.builder() needs endpoints(...) (or settings(...)) or client(...), not "
                + (client == null ? "neither" : "both"));
      }
      if (endpoints != null) {
        etcdSettings(); // checks the endpoints' schemes
      }
      return new DemandView(this);
    }

    private EtcdSettings etcdSettings() {
      return new EtcdSettings(endpoints, user, password, caFile, certFile, keyFile, requestTimeout);
    }

    private String describeEtcd() {
      return client != null ? "(the client given)" : endpoints.toString();
    }
  }
}
