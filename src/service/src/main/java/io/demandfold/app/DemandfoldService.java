package io.demandfold.app;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.http.DemandServer;
import io.demandfold.http.EtcdKeyProbe;
import io.demandfold.http.EtcdProbe;
import io.demandfold.http.StreamsDemandStore;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.LiveMirror;
import io.demandfold.stream.DemandTopology;
import io.demandfold.stream.DlqDeserializationHandler;
import io.demandfold.stream.DlqProcessingHandler;
import io.demandfold.stream.DlqProductionHandler;
import io.demandfold.stream.InputLag;
import io.demandfold.stream.PipelineMetrics;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running demandfold instance: ensures the topics, connects to etcd, runs the topology with
 * {@code exactly_once_v2} and, unless {@code http.enabled=false}, serves the HTTP API, dashboard
 * and {@code /metrics} ({@link #httpUrl()}). {@link #close()} stops the HTTP server, then the
 * streams cleanly (dirty keys stay in their changelog), then the etcd client.
 *
 * <pre>{@code
 * try (DemandfoldService s = DemandfoldService.start(config, registry)) {
 *   s.httpUrl().ifPresent(url -> System.out.println("http=" + url));
 *   s.awaitTermination();
 * }
 * }</pre>
 *
 * <p>Why one class of this size: it shows the service's lifecycle whole: the start-up checks in
 * their order, the build of the streams, the mirror and the HTTP server, and the stop in reverse
 * order.
 */
public final class DemandfoldService implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DemandfoldService.class);
  private static final long ADMIN_TIMEOUT_MS = 60_000;

  /** The commit interval unless {@code kafka.commit.interval.ms} says otherwise. */
  static final long DEFAULT_COMMIT_INTERVAL_MS = 1000;

  private final DemandfoldConfig config;
  private final PipelineMetrics metrics;
  private final Client etcd;
  private final LiveMirror liveMirror;
  private final KafkaStreams streams;
  private final DemandServer http;
  private final InstanceMeters meters;
  private final InputLag inputLag;
  private final CountDownLatch terminated = new CountDownLatch(1);
  private final List<KafkaStreams.State> states = new CopyOnWriteArrayList<>();
  private volatile Throwable failure;

  private DemandfoldService(
      DemandfoldConfig config,
      PipelineMetrics metrics,
      Client etcd,
      LiveMirror liveMirror,
      KafkaStreams streams,
      DemandServer http,
      InstanceMeters meters,
      InputLag inputLag) {
    this.config = config;
    this.metrics = metrics;
    this.etcd = etcd;
    this.liveMirror = liveMirror;
    this.streams = streams;
    this.http = http;
    this.meters = meters;
    this.inputLag = inputLag;
  }

  /**
   * Starts an instance. Its meters (pipeline, mirror, JVM, Kafka Streams, HTTP) go to {@code
   * registry}; {@code /metrics} scrapes it when it is a {@link PrometheusMeterRegistry}, else a
   * Prometheus registry that receives the same meters.
   *
   * @throws IllegalStateException with a message naming the setting or topic at fault when the
   *     instance cannot start
   */
  public static DemandfoldService start(DemandfoldConfig config, MeterRegistry registry)
      throws InterruptedException {
    config.requireKafka();
    if (config.mirrorAnything()) {
      config.requireEtcd();
    }
    InstanceMeters meters = new InstanceMeters(registry);
    PipelineMetrics metrics = new PipelineMetrics(meters.registry());
    Map<String, Object> kafka = new HashMap<>(config.kafkaSettings());
    DemandServer http = bindHttp(config);
    Client etcd = null;
    LiveMirror live = null;
    KafkaStreams streams = null;
    InputLag inputLag = new InputLag();
    try {
      int eventsPartitions = ensureTopics(config, kafka);
      if (config.mirrorAnything()) {
        EtcdAccess.check(config);
        etcd = config.etcd().connect();
        EtcdMirror mirror =
            config.mirror(
                etcd.getKVClient(),
                metrics.mirror(),
                config.getLong(DemandfoldConfig.MIRROR_CACHE_BYTES));
        live = config.liveMirror(mirror, metrics.mirror());
        metrics.bind(live);
      }
      if (http != null) {
        kafka.putIfAbsent(StreamsConfig.APPLICATION_SERVER_CONFIG, http.advertisedAddress());
      }
      Topology topology =
          DemandTopology.build(
              config.streams().withEventsPartitions(eventsPartitions), live, metrics, inputLag);
      streams =
          new KafkaStreams(topology, new StreamsConfig(streamsConfig(config, kafka, metrics)));
      meters.bind(streams);
      streams.setGlobalStateRestoreListener(new RestoreLog());
      DemandfoldService service =
          new DemandfoldService(config, metrics, etcd, live, streams, http, meters, inputLag);
      streams.setUncaughtExceptionHandler(
          new StreamThreadFailures(f -> service.failure = f, metrics::threadReplaced));
      streams.setStateListener(
          (now, before) -> {
            log.info("streams {} -> {}", before, now);
            service.states.add(now);
            if (now == KafkaStreams.State.NOT_RUNNING || now == KafkaStreams.State.ERROR) {
              service.terminated.countDown();
            }
          });
      if (http != null) {
        http.serve(
            new StreamsDemandStore(
                streams,
                metrics,
                String.valueOf(kafka.get(StreamsConfig.APPLICATION_SERVER_CONFIG)),
                config.getString(DemandfoldConfig.TOPICS_EVENTS)),
            etcd == null ? null : etcdProbe(config, etcd),
            meters.prometheus(),
            config.getList(DemandfoldConfig.HTTP_ALLOWED_HOSTS));
      }
      streams.start();
      inputLag.watch(streams::metrics);
      return service;
    } catch (RuntimeException | InterruptedException e) {
      inputLag.close();
      if (http != null) {
        http.close();
      }
      if (streams != null) {
        streams.close(Duration.ofSeconds(10));
      }
      if (live != null) {
        live.close();
      }
      meters.close();
      if (etcd != null) {
        etcd.close();
      }
      throw e;
    }
  }

  private static DemandServer bindHttp(DemandfoldConfig config) {
    if (!config.getBoolean(DemandfoldConfig.HTTP_ENABLED)) {
      return null;
    }
    try {
      return DemandServer.bind(
          config.getString(DemandfoldConfig.HTTP_HOST), config.getInt(DemandfoldConfig.HTTP_PORT));
    } catch (IOException e) {
      throw new IllegalStateException(
          e.getMessage() + " (http.host, http.port; http.enabled=false turns the server off)", e);
    }
  }

  /**
   * One count-only get of the prefix key, bounded by the smaller of 2 s and the request timeout.
   */
  private static EtcdProbe etcdProbe(DemandfoldConfig config, Client etcd) {
    ByteSequence key = ByteSequence.from(config.layout().prefix() + "/", StandardCharsets.UTF_8);
    long timeoutMs = Math.min(2000, config.getLong(DemandfoldConfig.ETCD_REQUEST_TIMEOUT_MS));
    return new EtcdKeyProbe(etcd.getKVClient(), key, timeoutMs);
  }

  /**
   * The Kafka Streams configuration: exactly-once, DLQ handlers (deserialization, processing, and
   * production for dead-letter records), pass-through settings. The processing handler is also
   * enabled for global processing, which Kafka asks for until 5.0 enables it by default (the
   * setting is deprecated for that reason).
   */
  @SuppressWarnings("deprecation")
  static Map<String, Object> streamsConfig(
      DemandfoldConfig config, Map<String, Object> kafka, PipelineMetrics metrics) {
    Map<String, Object> p = new HashMap<>();
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    // the fold's stores write their changelogs once per commit (DecodedStore): a commit a second
    // coalesces a hot shard's changes; etcd and the live views read the in-memory state
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, DEFAULT_COMMIT_INTERVAL_MS);
    // every task reads one partition, so there is nothing to synchronise by waiting; and in Kafka
    // 4.3 a task that may idle formats log messages with String.format whenever its queue is
    // empty, which cost a sixth of the stream thread (JFR of the bench)
    p.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, StreamsConfig.MAX_TASK_IDLE_MS_DISABLED);
    p.putAll(kafka);
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, config.getString(DemandfoldConfig.APPLICATION_ID));
    p.put(
        StreamsConfig.BOOTSTRAP_SERVERS_CONFIG,
        config.getString(DemandfoldConfig.BOOTSTRAP_SERVERS));
    p.put(
        StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG,
        config.getString(DemandfoldConfig.TOPICS_DLQ));
    p.put(
        StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
        DlqDeserializationHandler.class);
    p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, DlqProcessingHandler.class);
    p.put(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, DlqProductionHandler.class);
    p.putIfAbsent(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
    // the partition assignor builds its own StreamsConfig from the main consumer's configs, which
    // carry only consumer settings: without this copy it reads the default (false) and warns that
    // the handler is not enabled for the GlobalThread, though it is
    p.putIfAbsent(
        StreamsConfig.mainConsumerPrefix(
            StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG),
        p.get(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG));
    replication(config, p);
    p.put(PipelineMetrics.CONFIG_KEY, metrics);
    return p;
  }

  /**
   * Kafka Streams' changelog and repartition topics get {@code topics.replication.factor} and
   * {@code topics.min.insync.replicas} unless they are -1; a {@code kafka.replication.factor} or
   * {@code kafka.topic.min.insync.replicas} that says otherwise is refused naming both settings.
   */
  private static void replication(DemandfoldConfig config, Map<String, Object> p) {
    put(
        p,
        StreamsConfig.REPLICATION_FACTOR_CONFIG,
        config.getInt(DemandfoldConfig.TOPICS_REPLICATION_FACTOR),
        DemandfoldConfig.TOPICS_REPLICATION_FACTOR);
    put(
        p,
        StreamsConfig.topicPrefix(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG),
        config.getInt(DemandfoldConfig.TOPICS_MIN_INSYNC_REPLICAS),
        DemandfoldConfig.TOPICS_MIN_INSYNC_REPLICAS);
  }

  private static void put(Map<String, Object> p, String key, int value, String setting) {
    if (value < 0) {
      return;
    }
    Object given = p.get(key);
    if (given != null && !String.valueOf(given).trim().equals(String.valueOf(value))) {
      throw new ConfigException(
          DemandfoldConfig.KAFKA_PREFIX + key,
          given,
          "disagrees with " + setting + "=" + value + "; set only " + setting);
    }
    p.put(key, value);
  }

  /** Creates the missing topics; returns the events topic's partitions. */
  private static int ensureTopics(DemandfoldConfig config, Map<String, Object> kafka)
      throws InterruptedException {
    Map<String, Object> admin = config.kafkaClientSettings();
    admin.keySet().retainAll(AdminClientConfig.configNames());
    try (Admin a = Admin.create(admin)) {
      TopicDefinitions.of(config)
          .ensure(a, config.getBoolean(DemandfoldConfig.TOPICS_CREATE), ADMIN_TIMEOUT_MS);
      ApplicationHistory.check(a, config, ADMIN_TIMEOUT_MS);
      dlqMaxMessageBytes(a, config.getString(DemandfoldConfig.TOPICS_DLQ))
          .ifPresent(n -> kafka.put(DlqDeserializationHandler.DLQ_MAX_MESSAGE_BYTES, n));
      TopicDescription events =
          TopicDefinitions.describe(
              a, config.getString(DemandfoldConfig.TOPICS_EVENTS), ADMIN_TIMEOUT_MS);
      LogOfRecordCheck.Figures figures = LogOfRecordCheck.read(a, events, ADMIN_TIMEOUT_MS);
      figures.check(config.getBoolean(DemandfoldConfig.TOPICS_REQUIRE_REPLICATION));
      return TopicDefinitions.ensureMisrouted(
          a, config, events, figures.ownMinInsyncReplicas(), ADMIN_TIMEOUT_MS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          KafkaErrors.describe(config, e.getCause() == null ? e : e.getCause()), e);
    }
  }

  /**
   * The DLQ topic's {@code max.message.bytes}, so that dead-letter records are cut to fit it (a
   * record the broker refuses would fail the transaction at every restart); empty when it cannot be
   * read, and then only the producer's {@code max.request.size} bounds them.
   */
  private static OptionalInt dlqMaxMessageBytes(Admin admin, String topic)
      throws InterruptedException {
    try {
      ConfigEntry e =
          TopicDefinitions.config(
              admin, topic, TopicConfig.MAX_MESSAGE_BYTES_CONFIG, ADMIN_TIMEOUT_MS);
      return e == null || e.value() == null
          ? OptionalInt.empty()
          : OptionalInt.of(Integer.parseInt(e.value()));
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      log.warn(
          "cannot read max.message.bytes of the DLQ topic {} ({}); dead-letter records are bounded"
              + " by the producer's max.request.size only",
          topic,
          e.getCause() == null ? e : e.getCause().getMessage());
      return OptionalInt.empty();
    }
  }

  public KafkaStreams streams() {
    return streams;
  }

  public PipelineMetrics metrics() {
    return metrics;
  }

  /** The live mirror's concurrency limit now; 0 when nothing is mirrored. */
  public int mirrorLimit() {
    return liveMirror == null ? 0 : liveMirror.limit();
  }

  public DemandfoldConfig config() {
    return config;
  }

  /**
   * The base URL of the dashboard and API on this machine; empty when {@code http.enabled=false}.
   */
  public Optional<URI> httpUrl() {
    return http == null ? Optional.empty() : Optional.of(http.url());
  }

  /** Waits until the streams stop (after {@link #close()} or a fatal error). */
  public void awaitTermination() throws InterruptedException {
    terminated.await();
  }

  /** Every state the streams went into since the start, in order (e.g. to tell it left RUNNING). */
  public List<KafkaStreams.State> states() {
    return List.copyOf(states);
  }

  /** The error that stopped the streams, or {@code null}. */
  public Throwable failure() {
    return failure;
  }

  /**
   * Stops the HTTP server, then the streams, leaving the consumer group so that other instances
   * take over at once instead of after the session timeout, then closes the etcd client.
   */
  @Override
  public void close() {
    if (http != null) {
      http.close();
    }
    inputLag.close();
    streams.close(
        CloseOptions.timeout(Duration.ofSeconds(30))
            .withGroupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
    if (liveMirror != null) {
      liveMirror.close();
    }
    meters.close();
    if (etcd != null) {
      etcd.close();
    }
    terminated.countDown();
  }
}
