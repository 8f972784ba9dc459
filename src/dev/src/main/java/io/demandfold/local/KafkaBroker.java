package io.demandfold.local;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * A real single-node Kafka broker (KRaft, combined broker and controller) running as a child JVM on
 * 127.0.0.1, with replication factor 1 for every internal topic (without it an exactly-once
 * application hangs silently).
 *
 * <pre>{@code
 * try (KafkaBroker broker = KafkaBroker.builder().build().start()) {
 *   String bootstrap = broker.bootstrapServers(); // "127.0.0.1:PORT"
 *   broker.kill(); // SIGKILL, for fault tests
 *   broker.restart(); // same ports and data, no re-format
 * }
 * }</pre>
 *
 * <p>{@link #start()} returns once the broker serves (see {@link BrokerReadiness}). The child's
 * output, and the storage tool's, is appended to {@link #logFile()} in the data directory.
 */
public final class KafkaBroker extends LocalService<KafkaBroker> {
  private static final Duration FORMAT_TIMEOUT = Duration.ofSeconds(60);

  private final Map<String, String> extraServerProperties;
  private final Map<String, String> extraClientProperties;
  private final String heap;
  private final int nodeId;
  private final String clusterId;
  private int port;
  private int controllerPort;
  private boolean configured;

  private KafkaBroker(Builder b) {
    super("Kafka broker", DataDir.of(b.dataDir, "demandfold-kafka-"), "broker.log", b.startTimeout);
    this.extraServerProperties = new LinkedHashMap<>(b.serverProperties);
    this.extraClientProperties = new LinkedHashMap<>(b.clientProperties);
    this.heap = b.heap;
    this.nodeId = b.nodeId;
    this.clusterId = b.clusterId;
    this.port = b.port;
    this.controllerPort = b.controllerPort;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** {@code "127.0.0.1:PORT"}, fixed from the first start on. */
  public synchronized String bootstrapServers() {
    return FreePorts.LOOPBACK.getHostAddress() + ":" + port();
  }

  /** The client listener's port. */
  public synchronized int port() {
    if (port == 0) {
      throw new IllegalStateException("the broker was never started");
    }
    return port;
  }

  /** {@code bootstrap.servers} plus the client settings given to the builder. */
  public synchronized Map<String, String> clientProperties() {
    Map<String, String> props = new LinkedHashMap<>(extraClientProperties);
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    return props;
  }

  /**
   * The first start picks the ports, writes {@code server.properties} and formats the storage
   * unless the data directory holds a formatted one.
   */
  @Override
  void prepare() {
    if (configured) {
      return;
    }
    if (port == 0) {
      port = FreePorts.next();
      controllerPort = FreePorts.next();
    }
    Map<String, String> props = ServerProperties.combined(nodeId, port, controllerPort, dataDir());
    props.putAll(ServerProperties.resolve(extraServerProperties, port, controllerPort));
    ServerProperties.write(props, propertiesFile());
    if (!Files.exists(dataDir().resolve(ServerProperties.LOG_DIR).resolve("meta.properties"))) {
      format();
    }
    configured = true;
  }

  @Override
  ChildProcess launch() {
    return ChildProcess.start(
        "Kafka broker", java("kafka.Kafka", propertiesFile().toString()), dataDir(), logFile());
  }

  @Override
  void awaitReady(ChildProcess process, long deadline) {
    new BrokerReadiness(this, process, nodeId).await(deadline, startTimeout());
  }

  @Override
  String address() {
    return bootstrapServers();
  }

  @Override
  KafkaBroker self() {
    return this;
  }

  private Path propertiesFile() {
    return dataDir().resolve("server.properties");
  }

  private void format() {
    String clusterId = this.clusterId != null ? this.clusterId : Uuid.randomUuid().toString();
    List<String> command =
        java(
            "kafka.tools.StorageTool",
            "format",
            "-t",
            clusterId,
            "-c",
            propertiesFile().toString());
    ChildProcess tool = ChildProcess.start("Kafka storage tool", command, dataDir(), logFile());
    if (!tool.awaitExit(FORMAT_TIMEOUT)) {
      tool.kill();
      throw failure("storage format did not finish within " + FORMAT_TIMEOUT.toSeconds() + " s");
    }
    if (tool.exitValue() != 0) {
      throw failure("storage format failed with exit status " + tool.exitValue());
    }
  }

  private List<String> java(String mainClass, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx" + heap);
    command.add("-Djava.awt.headless=true");
    command.add("-cp");
    command.add(classPath());
    command.add(mainClass);
    command.addAll(List.of(args));
    return command;
  }

  /** This JVM's class path with absolute entries, since the child runs in the data directory. */
  private static String classPath() {
    return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .filter(entry -> !entry.isEmpty())
        .map(entry -> Path.of(entry).toAbsolutePath().toString())
        .collect(Collectors.joining(File.pathSeparator));
  }

  /** Settings of a broker; build with {@link KafkaBroker#builder()}. */
  public static final class Builder {
    private Path dataDir;
    private final Map<String, String> serverProperties = new LinkedHashMap<>();
    private final Map<String, String> clientProperties = new LinkedHashMap<>();
    private String heap = "512m";
    private Duration startTimeout = Duration.ofSeconds(60);
    private int nodeId = 1;
    private String clusterId;
    private int port;
    private int controllerPort;

    private Builder() {}

    /**
     * The node id, default 1. A node of a cluster of several also needs its {@link #ports}, the
     * cluster's {@link #clusterId} and {@code controller.quorum.voters} naming every node (a {@link
     * #serverProperty}).
     */
    public Builder nodeId(int nodeId) {
      if (nodeId < 0) {
        throw new IllegalArgumentException("nodeId must be >= 0, got " + nodeId);
      }
      this.nodeId = nodeId;
      return this;
    }

    /** The cluster id the storage is formatted with; default a random one. */
    public Builder clusterId(String clusterId) {
      this.clusterId = Objects.requireNonNull(clusterId, "clusterId");
      return this;
    }

    /**
     * The client and controller listeners' ports, fixed before the first start (the nodes of a
     * cluster name each other's controller ports); default free ports picked at the first start.
     */
    public Builder ports(int port, int controllerPort) {
      if (port <= 0 || port > 65535 || controllerPort <= 0 || controllerPort > 65535) {
        throw new IllegalArgumentException(
            "ports must be in 1..65535, got " + port + " and " + controllerPort);
      }
      this.port = port;
      this.controllerPort = controllerPort;
      return this;
    }

    /** Where data, configuration and log go; default a temporary directory deleted on close. */
    public Builder dataDir(Path dataDir) {
      this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
      return this;
    }

    /**
     * A server property added to or overriding the defaults; {@code ${port}} and {@code
     * ${controller.port}} in the value stand for the listeners' ports (e.g. for SASL or SSL).
     */
    public Builder serverProperty(String name, String value) {
      serverProperties.put(
          Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, name));
      return this;
    }

    public Builder serverProperties(Map<String, String> properties) {
      Objects.requireNonNull(properties, "properties").forEach(this::serverProperty);
      return this;
    }

    /**
     * Client settings (e.g. security) the readiness check uses and {@link #clientProperties()}
     * returns.
     */
    public Builder clientProperties(Map<String, String> properties) {
      Objects.requireNonNull(properties, "properties").forEach(clientProperties::put);
      return this;
    }

    /**
     * The child JVM's maximum heap, as for {@code -Xmx}: e.g. {@code 512m} (default) or {@code 2g}.
     */
    public Builder heap(String heap) {
      if (heap == null || !heap.matches("[1-9][0-9]*[kKmMgG]?")) {
        throw new IllegalArgumentException("heap must look like 512m or 2g, got '" + heap + "'");
      }
      this.heap = heap;
      return this;
    }

    /** How long a start may take until the broker serves; default 60 s. */
    public Builder startTimeout(Duration timeout) {
      this.startTimeout = requirePositive(timeout, "startTimeout");
      return this;
    }

    public KafkaBroker build() {
      return new KafkaBroker(this);
    }
  }
}
