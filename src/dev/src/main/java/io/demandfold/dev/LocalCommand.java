package io.demandfold.dev;

import io.demandfold.app.DemandfoldService;
import io.demandfold.cli.Logging;
import io.demandfold.cli.StateHome;
import io.demandfold.client.DemandPublisher;
import io.demandfold.config.DemandfoldConfig;
import io.demandfold.config.SettingsLoader;
import io.demandfold.local.EtcdServer;
import io.demandfold.local.KafkaBroker;
import io.demandfold.sim.FleetModel;
import io.demandfold.sim.FleetSimulator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code demandfold local}: everything on this machine, for a first look. */
@Command(
    name = "local",
    mixinStandardHelpOptions = true,
    description = {
      "Starts a single-node Kafka broker (a child JVM) and an etcd (a child process) on free"
          + " loopback ports, the pipeline, and a simulated fleet of writers, executors and a"
          + " scan; prints where to look and a live summary. Ctrl-C or SIGTERM stops everything it"
          + " started.",
      "Prints, for scripts: log=FILE, kafka.bootstrap.servers=HOST:PORT, etcd.endpoints=URL,"
          + " etcd.prefix=PREFIX, http=URL (the dashboard), data=DIR.",
      "The log goes to FILE in the data directory; the console shows only demandfold's own"
          + " lines and errors (--verbose: the whole log)."
    })
final class LocalCommand implements Callable<Integer> {
  @Option(names = "--targets", defaultValue = "5", description = "Simulated tables (default 5).")
  int targets;

  @Option(names = "--shards", defaultValue = "4", description = "Shards per table (default 4).")
  int shards;

  @Option(
      names = "--flush-rate",
      defaultValue = "20",
      description = "Writer flushes per second, all shards together (default 20).")
  double flushRate;

  @Option(
      names = "--merge-rate",
      defaultValue = "15",
      description = "Executor merges per second, all shards together (default 15).")
  double mergeRate;

  @Option(
      names = "--scan-interval",
      defaultValue = "PT10S",
      description =
          "How often the scan reports every shard, ISO-8601 (default PT10S; PT0S: never).")
  Duration scanInterval;

  @Option(
      names = "--epoch-change-interval",
      defaultValue = "PT60S",
      description = "How often a writer takes over a shard under a new epoch (default PT60S).")
  Duration epochChangeInterval;

  @Option(
      names = "--bootstrap-servers",
      paramLabel = "HOST:PORT",
      description = "Use this broker instead of starting one.")
  String bootstrapServers;

  /** The old name of {@code --bootstrap-servers}, still accepted. */
  @Option(names = "--kafka-bootstrap", hidden = true, paramLabel = "HOST:PORT")
  String deprecatedKafkaBootstrap;

  @Option(
      names = "--etcd-endpoints",
      paramLabel = "URL",
      description = "Use this etcd instead of starting one.")
  String etcdEndpoints;

  @Option(names = "--prefix", defaultValue = "/demandfold", description = "etcd.prefix.")
  String prefix;

  @Option(
      names = "--http-port",
      defaultValue = "8080",
      description = "Port of the dashboard, API and metrics (default 8080; 0: any free port).")
  int httpPort;

  @Option(
      names = "--data-dir",
      paramLabel = "DIR",
      description =
          "Where the broker, etcd, the state stores and the log keep data (default: a new"
              + " directory under $XDG_STATE_HOME/demandfold, i.e. ~/.local/state/demandfold,"
              + " deleted at the end unless the run failed).")
  Path dataDir;

  @Option(
      names = "--verbose",
      description = "Print the whole log on the console too, not only demandfold's own lines.")
  boolean verbose;

  @Option(
      names = "--duration",
      defaultValue = "PT0S",
      description = "Stop after this long, ISO-8601 (default PT0S: run until stopped).")
  Duration duration;

  @Option(
      names = "--report-interval",
      defaultValue = "PT5S",
      description = "How often to print the summary (default PT5S).")
  Duration reportInterval;

  @Spec CommandSpec spec;

  private final Deque<AutoCloseable> started = new ArrayDeque<>();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private Path ownedDir;

  /** The log file's name in the data directory. */
  static final String LOG_FILE = "demandfold.log";

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (deprecatedKafkaBootstrap != null) {
      spec.commandLine().getErr().println("local: --kafka-bootstrap is now --bootstrap-servers");
    }
    Path dir = dataDir == null ? newDataDir() : Files.createDirectories(dataDir);
    ownedDir = dataDir == null ? dir : null;
    Path logFile = dir.resolve(LOG_FILE);
    started.push(Logging.toFile(logFile, verbose));
    out.println("log=" + logFile);
    out.flush();
    Thread hook = new Thread(this::stopAll, "demandfold-local-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    boolean failed = true;
    try {
      String etcd = etcdEndpoints;
      if (etcd == null) {
        EtcdServer server = EtcdServer.builder().dataDir(dir.resolve("etcd")).build();
        started.push(server);
        etcd = server.start().endpoint();
      }
      String kafka = bootstrapServers != null ? bootstrapServers : deprecatedKafkaBootstrap;
      if (kafka == null) {
        KafkaBroker broker = KafkaBroker.builder().dataDir(dir.resolve("kafka")).build();
        started.push(broker);
        kafka = broker.start().bootstrapServers();
      }
      Map<String, String> s = new LinkedHashMap<>();
      s.put(DemandfoldConfig.BOOTSTRAP_SERVERS, kafka);
      s.put(DemandfoldConfig.ETCD_ENDPOINTS, etcd);
      s.put(DemandfoldConfig.ETCD_PREFIX, prefix);
      s.put(DemandfoldConfig.APPLICATION_ID, "demandfold-local");
      s.put("kafka.state.dir", dir.resolve("state").toString());
      s.put("http.port", Integer.toString(httpPort));
      SettingsLoader loader = new SettingsLoader();
      s.forEach((k, v) -> loader.flag(k, v, "demandfold local"));
      DemandfoldConfig config = loader.load();
      DemandfoldService service = DemandfoldService.start(config, new SimpleMeterRegistry());
      started.push(service);

      out.println("kafka.bootstrap.servers=" + kafka);
      out.println("etcd.endpoints=" + etcd);
      out.println("etcd.prefix=" + config.layout().prefix());
      service.httpUrl().ifPresent(u -> out.println("http=" + u));
      out.println("data=" + dir);
      out.flush();

      DemandPublisher publisher =
          DemandPublisher.builder(kafka)
              .topic(config.getString(DemandfoldConfig.TOPICS_EVENTS))
              .build();
      started.push(publisher);
      FleetSimulator fleet =
          new FleetSimulator(
              new FleetModel(System.nanoTime(), targets, shards),
              publisher,
              flushRate,
              mergeRate,
              scanInterval,
              epochChangeInterval);
      started.push(fleet);
      out.printf(
          "simulating %d tables x %d shards: %.0f flushes/s, %.0f merges/s, scan every %ds;"
              + " Ctrl-C stops%n",
          targets, shards, flushRate, mergeRate, scanInterval.toSeconds());
      out.flush();

      LocalReport report = new LocalReport(config, out);
      started.push(report);
      long end = duration.isZero() ? Long.MAX_VALUE : System.nanoTime() + duration.toNanos();
      while (System.nanoTime() < end && service.failure() == null) {
        if (stopped.await(reportInterval.toMillis(), TimeUnit.MILLISECONDS)) {
          failed = false;
          return 0;
        }
        report.print(fleet.published());
      }
      failed = service.failure() != null;
      return failed ? 1 : 0;
    } finally {
      if (failed && ownedDir != null) {
        spec.commandLine()
            .getErr()
            .println("demandfold local: keeping " + ownedDir + " for its logs (" + LOG_FILE + ")");
        ownedDir = null;
      }
      stopAll();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // shutting down already
      }
    }
  }

  /**
   * Stops what was started, newest first, and deletes a data directory of its own; safe to call
   * twice (from the shutdown hook on SIGTERM and from the command's end).
   */
  private synchronized void stopAll() {
    stopped.countDown();
    while (!started.isEmpty()) {
      AutoCloseable c = started.pop();
      try {
        c.close();
      } catch (Exception e) {
        spec.commandLine().getErr().println("demandfold local: stopping " + c + ": " + e);
      }
    }
    if (ownedDir != null) {
      deleteQuietly(ownedDir);
      ownedDir = null;
    }
  }

  /**
   * A new directory under the {@link StateHome}, not the OS temp directory: Kafka Streams keeps its
   * stores there and warns, rightly, that the OS may clear a temp directory under it.
   */
  private static Path newDataDir() throws java.io.IOException {
    Path home = Files.createDirectories(StateHome.current());
    return Files.createTempDirectory(home, "local-");
  }

  private static void deleteQuietly(Path dir) {
    try (var walk = Files.walk(dir)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (java.io.IOException e) {
      // best effort
    }
  }
}
