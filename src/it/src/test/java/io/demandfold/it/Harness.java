package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.app.DemandfoldService;
import io.demandfold.config.DemandfoldConfig;
import io.demandfold.config.SettingsLoader;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.MirrorMetrics;
import io.demandfold.mirror.RecordKind;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;

/**
 * One isolated pipeline setup on the class's real broker and etcd: its own topics, application id,
 * state directory and etcd prefix. Starts demandfold instances in this JVM, produces events, and
 * reads back etcd and the output topics.
 */
final class Harness implements AutoCloseable {
  static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final long POLL_MS = 200;
  private static final int SHOWN = 2000;

  final Services services;
  final String name;
  final String prefix;
  final String eventsTopic;
  private final List<DemandfoldService> running = new ArrayList<>();
  private final Map<String, String> base = new HashMap<>();
  private final KafkaProducer<byte[], byte[]> producer;
  private final List<Map.Entry<ProducerRecord<byte[], byte[]>, java.util.concurrent.Future<?>>>
      pending = new ArrayList<>();

  Harness(Services services, String base) throws Exception {
    this(services, base, Map.of());
  }

  /** A setup whose producer takes {@code producerOverrides} (e.g. a larger max.request.size). */
  Harness(Services services, String base, Map<String, Object> producerOverrides) throws Exception {
    this.services = services;
    this.name = services.uniqueName(base);
    this.prefix = "/" + name;
    this.eventsTopic = name + ".events";
    this.base.put(DemandfoldConfig.BOOTSTRAP_SERVERS, services.bootstrapServers());
    this.base.put(DemandfoldConfig.ETCD_ENDPOINTS, services.etcdEndpoint());
    this.base.put(DemandfoldConfig.ETCD_PREFIX, prefix);
    this.base.put(DemandfoldConfig.APPLICATION_ID, name);
    this.base.put(DemandfoldConfig.TOPICS_EVENTS, eventsTopic);
    this.base.put(DemandfoldConfig.TOPICS_DLQ, name + ".dlq");
    this.base.put(DemandfoldConfig.TOPICS_SHARD_RECORDS, name + ".shard-records");
    this.base.put(DemandfoldConfig.TOPICS_TABLE_DEMAND, name + ".table-demand");
    this.base.put(DemandfoldConfig.OUTBOX_INTERVAL_MS, "50");
    this.base.put("kafka.commit.interval.ms", "100");
    // every instance serves its API on a free loopback port (see DemandfoldService#httpUrl)
    this.base.put(DemandfoldConfig.HTTP_HOST, "127.0.0.1");
    this.base.put(DemandfoldConfig.HTTP_PORT, "0");
    this.base.put("kafka.state.dir", Files.createTempDirectory("demandfold-state-").toString());
    // one request in flight: a fresh partition can otherwise reorder an idempotent producer's
    // first requests and lose one to OUT_OF_ORDER_SEQUENCE retries (KAFKA-15591)
    java.util.Properties props = services.producerProps();
    props.put(
        org.apache.kafka.clients.producer.ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    props.put(org.apache.kafka.clients.producer.ProducerConfig.LINGER_MS_CONFIG, 5);
    props.putAll(producerOverrides);
    this.producer = new KafkaProducer<>(props);
  }

  /** Settings of this setup with {@code overrides} on top. */
  DemandfoldConfig config(Map<String, String> overrides) {
    SettingsLoader l = new SettingsLoader();
    settings(overrides).forEach((k, v) -> l.flag(k, v, "test"));
    return l.load();
  }

  /** The raw settings of this setup with {@code overrides} on top, e.g. for a child JVM. */
  Map<String, String> settings(Map<String, String> overrides) {
    Map<String, String> all = new HashMap<>(base);
    all.putAll(overrides);
    return all;
  }

  DemandfoldService start(Map<String, String> overrides) throws Exception {
    DemandfoldConfig config = config(overrides);
    DemandfoldService s = DemandfoldService.start(config, new SimpleMeterRegistry());
    running.add(s);
    awaitTopicReady(config.getString(DemandfoldConfig.TOPICS_EVENTS));
    return s;
  }

  DemandfoldService start() throws Exception {
    return start(Map.of());
  }

  /** A second instance of the same application, with its own state directory. */
  DemandfoldService startAnother() throws Exception {
    return start(
        Map.of("kafka.state.dir", Files.createTempDirectory("demandfold-state-").toString()));
  }

  void stop(DemandfoldService s) {
    s.close();
    running.remove(s);
  }

  /**
   * Produces each event with its key, as JSON or Avro at random, and waits until every one is
   * acknowledged. A send that fails (a freshly created topic can answer NOT_LEADER and then
   * OUT_OF_ORDER_SEQUENCE to an idempotent producer) is sent again: events are idempotent.
   */
  void produce(List<DemandEvent> events, Random rnd) throws Exception {
    for (DemandEvent e : events) {
      byte[] value = rnd.nextBoolean() ? JsonCodec.encodeEvent(e) : AvroCodec.encodeEvent(e);
      produceRaw(e.key().getBytes(StandardCharsets.UTF_8), value);
    }
    flush();
  }

  /** Sends one record; {@link #flush()} checks that it arrived. */
  void produceRaw(byte[] key, byte[] value) {
    produceRaw(key, value, List.of());
  }

  /** Sends one record with {@code headers}; {@link #flush()} checks that it arrived. */
  void produceRaw(byte[] key, byte[] value, Iterable<Header> headers) {
    produceRawTo(eventsTopic, key, value, headers);
  }

  /** Sends one record to {@code topic}; {@link #flush()} checks that it arrived. */
  void produceRawTo(String topic, byte[] key, byte[] value, Iterable<Header> headers) {
    ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, null, key, value, headers);
    pending.add(Map.entry(r, producer.send(r)));
  }

  /**
   * Sends one record stamped {@code timestampMs} (its CreateTime); {@link #flush()} checks that it
   * arrived.
   */
  void produceAt(byte[] key, byte[] value, long timestampMs) {
    ProducerRecord<byte[], byte[]> r =
        new ProducerRecord<>(eventsTopic, null, timestampMs, key, value);
    pending.add(Map.entry(r, producer.send(r)));
  }

  /** Waits for every record sent so far, re-sending failures, and fails if one never arrives. */
  void flush() throws Exception {
    for (int round = 0; !pending.isEmpty(); round++) {
      producer.flush();
      List<ProducerRecord<byte[], byte[]>> failed = new ArrayList<>();
      Throwable last = null;
      for (var p : pending) {
        try {
          p.getValue().get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          failed.add(p.getKey());
          last = e.getCause();
        }
      }
      pending.clear();
      if (!failed.isEmpty() && round == 5) {
        throw new AssertionError(failed.size() + " events could not be produced", last);
      }
      for (ProducerRecord<byte[], byte[]> r : failed) {
        pending.add(Map.entry(r, producer.send(r)));
      }
    }
  }

  /**
   * Waits until {@code topic} exists (a child instance creates it), then as {@link
   * #awaitTopicReady(String)}. The producer is not asked before: it would create the topic.
   */
  int awaitTopicCreated(String topic, Duration patience) throws Exception {
    await(
        "topic " + topic + " to be created",
        this::topicNames,
        names -> names.contains(topic),
        patience);
    return awaitTopicReady(topic);
  }

  private Set<String> topicNames() {
    try {
      return services.admin().listTopics().names().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      return Set.of(e.toString());
    }
  }

  /**
   * Waits until every partition of {@code topic} has a leader the producer knows; returns the
   * partitions.
   */
  int awaitTopicReady(String topic) throws Exception {
    await(
        "a leader for every partition of " + topic + ", known to the producer",
        () -> withoutLeader(topic),
        List::isEmpty,
        Duration.ofSeconds(60));
    return partitionsSeen(topic);
  }

  /** The partitions of {@code topic} that the broker or the producer sees without a leader. */
  private List<String> withoutLeader(String topic) {
    List<String> out = new ArrayList<>();
    try {
      services
          .admin()
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get(10, TimeUnit.SECONDS)
          .get(topic)
          .partitions()
          .stream()
          .filter(p -> p.leader() == null)
          .forEach(p -> out.add("broker: " + topic + "-" + p.partition()));
    } catch (Exception e) {
      out.add("broker: " + e);
    }
    producer.partitionsFor(topic).stream()
        .filter(p -> p.leader() == null)
        .forEach(p -> out.add("producer: " + topic + "-" + p.partition()));
    return out;
  }

  /** The partitions of {@code topic} this setup's producer knows of. */
  int partitionsSeen(String topic) {
    return producer.partitionsFor(topic).size();
  }

  EtcdLayout layout() {
    return new EtcdLayout(prefix);
  }

  /**
   * Another writer of this prefix, joining its records in with the read-join-compare-and-swap the
   * reference publishers use: many retries, since it races the pipeline on the same keys.
   */
  EtcdMirror externalWriter(MirrorMetrics metrics) {
    return EtcdMirror.builder()
        .kv(services.etcdClient().getKVClient())
        .layout(layout())
        .maxRetries(50)
        .timeout(Duration.ofSeconds(5))
        .maxRequestBytes(1_572_864)
        .metrics(metrics)
        .build();
  }

  /** Every value under {@code from}, by key without {@code from}. */
  Map<String, byte[]> etcdValues(String from) throws Exception {
    ByteSequence p = ByteSequence.from(from, StandardCharsets.UTF_8);
    List<KeyValue> kvs =
        services
            .etcdClient()
            .getKVClient()
            .get(p, GetOption.builder().isPrefix(true).build())
            .get(10, TimeUnit.SECONDS)
            .getKvs();
    Map<String, byte[]> out = new TreeMap<>();
    for (KeyValue kv : kvs) {
      out.put(
          kv.getKey().toString(StandardCharsets.UTF_8).substring(from.length()),
          kv.getValue().getBytes());
    }
    return out;
  }

  /** What etcd must hold for {@code expected}: shard keys and table keys to canonical bytes. */
  static Map<String, String> expectedEtcd(Fold expected, EtcdLayout layout) {
    Map<String, String> out = new TreeMap<>();
    for (var t : expected.targets().entrySet()) {
      for (ShardRecord r : t.getValue().values()) {
        out.put(
            layout.shardKey(Keys.shardKey(t.getKey(), r.shard())),
            new String(JsonCodec.encodeRecord(r), StandardCharsets.UTF_8));
      }
      String key = layout.tableKey(Keys.hex(t.getKey()));
      out.put(
          key,
          new String(
              EtcdMirror.tableValue(key, TableRecord.of(t.getValue().values()), 1_572_864),
              StandardCharsets.UTF_8));
    }
    return out;
  }

  /** Every key under this prefix, as text. */
  Map<String, String> etcdState() throws Exception {
    Map<String, String> out = new TreeMap<>();
    etcdValues(prefix + "/")
        .forEach((k, v) -> out.put(prefix + "/" + k, new String(v, StandardCharsets.UTF_8)));
    return out;
  }

  /** Waits until etcd under this prefix holds exactly {@code expected}'s records and tables. */
  void awaitEtcd(Fold expected) throws Exception {
    Map<String, String> want = expectedEtcd(expected, layout());
    long t0 = System.nanoTime();
    awaitEquals("etcd under " + prefix, this::etcdStateUnchecked, want, PATIENCE);
    System.out.printf(
        "%s: etcd awaited %d ms for %d keys%n",
        name, (System.nanoTime() - t0) / 1_000_000, want.size());
  }

  /**
   * Waits until every key of {@code want} holds its value in etcd; other keys under the prefix are
   * not looked at.
   */
  void awaitEtcdHolds(Map<String, String> want) throws InterruptedException {
    awaitEquals(
        "these keys in etcd under " + prefix,
        () -> {
          Map<String, String> now = etcdStateUnchecked();
          Map<String, String> held = new TreeMap<>();
          for (String k : want.keySet()) {
            if (now.containsKey(k)) {
              held.put(k, now.get(k));
            }
          }
          return held;
        },
        new TreeMap<>(want),
        PATIENCE);
  }

  private Map<String, String> etcdStateUnchecked() {
    try {
      return etcdState();
    } catch (Exception e) {
      System.out.println(name + ": reading etcd failed: " + e);
      return Map.of();
    }
  }

  /** Waits until {@code topic} holds at least {@code count} committed records; returns them all. */
  static List<ConsumerRecord<byte[], byte[]>> awaitRecords(
      Services services, String topic, int count) throws InterruptedException {
    return await(
            count + " records in " + topic,
            () -> Read.of(services, topic),
            r -> r.records().size() >= count,
            PATIENCE)
        .records();
  }

  /** The records of a topic, or why they could not be read (e.g. no such topic yet). */
  private record Read(List<ConsumerRecord<byte[], byte[]>> records, RuntimeException error) {
    static Read of(Services services, String topic) {
      try {
        return new Read(services.readAll(topic), null);
      } catch (RuntimeException e) {
        return new Read(List.of(), e);
      }
    }

    @Override
    public String toString() {
      return error == null ? records.size() + " records" : error.toString();
    }
  }

  /** The latest value per key of a compacted output topic. */
  Map<String, String> latest(String topic) {
    Map<String, String> out = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r : services.readAll(topic)) {
      out.put(
          new String(r.key(), StandardCharsets.UTF_8),
          new String(r.value(), StandardCharsets.UTF_8));
    }
    return out;
  }

  /**
   * Polls {@code probe} until {@code until} accepts what it returns, and returns that value. After
   * {@code patience} it fails with what it waited for and the last value it saw (as
   * kafka-streams-examples' {@code TestUtils.waitForCondition}). An exception of the probe ends the
   * wait at once; a probe that may fail while the system settles returns what it saw instead.
   *
   * <pre>{@code
   * long dead = Harness.await("a dead letter", () -> s.metrics().dlqTotal(), n -> n >= 1, PATIENCE);
   * }</pre>
   */
  static <T> T await(
      String what, Supplier<? extends T> probe, Predicate<? super T> until, Duration patience)
      throws InterruptedException {
    long deadline = System.nanoTime() + patience.toNanos();
    while (true) {
      T seen = probe.get();
      if (until.test(seen)) {
        return seen;
      }
      if (System.nanoTime() - deadline >= 0) {
        throw new AssertionError(
            "waited "
                + patience.toMillis()
                + " ms for "
                + what
                + "; last saw: "
                + abbreviate(String.valueOf(seen)));
      }
      Thread.sleep(POLL_MS);
    }
  }

  /**
   * Polls {@code probe} until it returns {@code want}. After {@code patience} it fails as AssertJ's
   * {@code isEqualTo} does, comparing the last value seen with {@code want}. A number of another
   * type than {@code want} (a {@code long} probe, an {@code int} want) fails at once: it never
   * equals.
   */
  static <T> void awaitEquals(String what, Supplier<? extends T> probe, T want, Duration patience)
      throws InterruptedException {
    long deadline = System.nanoTime() + patience.toNanos();
    while (true) {
      T seen = probe.get();
      if (Objects.equals(seen, want)) {
        return;
      }
      if (seen instanceof Number && want instanceof Number && seen.getClass() != want.getClass()) {
        throw new IllegalArgumentException(
            what
                + ": a "
                + seen.getClass().getSimpleName()
                + " never equals the "
                + want.getClass().getSimpleName()
                + " "
                + want);
      }
      if (System.nanoTime() - deadline >= 0) {
        assertThat(seen).as("%s, after waiting %d ms", what, patience.toMillis()).isEqualTo(want);
      }
      Thread.sleep(POLL_MS);
    }
  }

  /** {@code s}, its middle left out past {@value #SHOWN} characters: a probe may see a lot. */
  static String abbreviate(String s) {
    if (s.length() <= SHOWN) {
      return s;
    }
    int half = SHOWN / 2;
    return s.substring(0, half)
        + " [... "
        + (s.length() - 2 * half)
        + " characters ...] "
        + s.substring(s.length() - half);
  }

  /** Waits until {@code s} has no shard or table key left to write into etcd. */
  static void awaitNothingDirty(DemandfoldService s, Duration patience)
      throws InterruptedException {
    awaitEquals(
        "no dirty shard or table key",
        () ->
            Map.of(
                RecordKind.SHARD, s.metrics().dirtyKeys(RecordKind.SHARD),
                RecordKind.TABLE, s.metrics().dirtyKeys(RecordKind.TABLE)),
        Map.of(RecordKind.SHARD, 0L, RecordKind.TABLE, 0L),
        patience);
  }

  static Fold fold(List<DemandEvent> events) {
    Fold f = new Fold();
    events.forEach(f::add);
    return f;
  }

  @Override
  public void close() {
    for (DemandfoldService s : running) {
      s.close();
    }
    running.clear();
    producer.close(Duration.ofSeconds(5));
  }
}
