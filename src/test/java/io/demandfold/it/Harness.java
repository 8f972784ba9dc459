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
import io.demandfold.core.codec.TableJson;
import io.demandfold.mirror.EtcdLayout;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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

/**
 * One isolated pipeline setup on the class's real broker and etcd: its own topics, application
 * id, state directory and etcd prefix. Starts demandfold instances in this JVM, produces events,
 * and reads back etcd and the output topics.
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

  Harness(Services services, String base) throws Exception {
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
    this.base.put("kafka.state.dir", Files.createTempDirectory("demandfold-state-").toString());
    this.producer = services.producer();
  }

  /** Settings of this setup with {@code overrides} on top. */
  DemandfoldConfig config(Map<String, String> overrides) {
    SettingsLoader l = new SettingsLoader();
    Map<String, String> all = new HashMap<>(base);
    all.putAll(overrides);
    all.forEach((k, v) -> l.flag(k, v, "test"));
    return l.load();
  }

  DemandfoldService start(Map<String, String> overrides) throws InterruptedException {
    DemandfoldService s = DemandfoldService.start(config(overrides), new SimpleMeterRegistry());
    running.add(s);
    return s;
  }

  DemandfoldService start() throws InterruptedException {
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

  /** Produces each event with its key, as JSON or Avro at random, and waits for the acks. */
  void produce(List<DemandEvent> events, Random rnd) throws Exception {
    for (DemandEvent e : events) {
      byte[] value = rnd.nextBoolean() ? JsonCodec.encodeEvent(e) : AvroCodec.encodeEvent(e);
      produceRaw(e.key().getBytes(StandardCharsets.UTF_8), value);
    }
    producer.flush();
  }

  void produceRaw(byte[] key, byte[] value) {
    producer.send(new ProducerRecord<>(eventsTopic, key, value));
  }

  void flush() {
    producer.flush();
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
      out.put(kv.getKey().toString(StandardCharsets.UTF_8).substring(from.length()), kv.getValue().getBytes());
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
      out.put(
          layout.tableKey(Keys.hex(t.getKey())),
          new String(
              TableJson.encode(TableRecord.of(t.getValue().values()), 1_572_864 - 200),
              StandardCharsets.UTF_8));
    }
    return out;
  }

  /** Every key under this prefix, as text. */
  Map<String, String> etcdState() throws Exception {
    Map<String, String> out = new TreeMap<>();
    etcdValues(prefix + "/").forEach((k, v) -> out.put(prefix + "/" + k, new String(v, StandardCharsets.UTF_8)));
    return out;
  }

  /** Waits until etcd under this prefix holds exactly {@code expected}'s records and tables. */
  void awaitEtcd(Fold expected) throws Exception {
    Map<String, String> want = expectedEtcd(expected, layout());
    await(() -> want.equals(etcdStateUnchecked()), PATIENCE);
    assertThat(etcdState()).isEqualTo(want);
  }

  /**
   * Whether every key of {@code want} holds its value in etcd; {@code except} (may be null) is
   * not compared.
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
      return Map.of();
    }
  }

  /** The latest value per key of a compacted output topic. */
  Map<String, String> latest(String topic) {
    Map<String, String> out = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r : services.readAll(topic)) {
      out.put(new String(r.key(), StandardCharsets.UTF_8), new String(r.value(), StandardCharsets.UTF_8));
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
