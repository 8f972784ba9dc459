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
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
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

  /** Waits until every partition of {@code topic} has a leader the producer knows. */
  void awaitTopicReady(String topic) throws Exception {
    var desc =
        services.admin().describeTopics(List.of(topic)).allTopicNames().get(60, TimeUnit.SECONDS);
    await(
        () ->
            desc.get(topic).partitions().stream().allMatch(p -> p.leader() != null)
                && producer.partitionsFor(topic).stream().allMatch(p -> p.leader() != null),
        Duration.ofSeconds(60));
  }

  /** The partitions of {@code topic} this setup's producer knows of. */
  int partitionsSeen(String topic) {
    return producer.partitionsFor(topic).size();
  }

  EtcdLayout layout() {
    return new EtcdLayout(prefix);
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
    await(() -> want.equals(etcdStateUnchecked()), PATIENCE);
    System.out.printf(
        "%s: etcd awaited %d ms for %d keys%n",
        name, (System.nanoTime() - t0) / 1_000_000, want.size());
    assertThat(etcdState()).isEqualTo(want);
  }

  /**
   * Whether every key of {@code want} holds its value in etcd; {@code except} (may be null) is not
   * compared.
   */
  boolean etcdStateMatches(Map<String, String> want, String except) {
    Map<String, String> now = etcdStateUnchecked();
    for (var e : want.entrySet()) {
      if (!e.getKey().equals(except) && !e.getValue().equals(now.get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }

  private Map<String, String> etcdStateUnchecked() {
    try {
      return etcdState();
    } catch (Exception e) {
      System.out.println(name + ": reading etcd failed: " + e);
      return Map.of();
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

  static void await(BooleanSupplier condition, Duration patience) throws InterruptedException {
    long deadline = System.nanoTime() + patience.toNanos();
    while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
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
