package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Events;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.EventDecoder;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.mirror.EtcdLayout;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The etcd source in a real Connect worker, against a real broker and a real etcd. That nothing
 * more arrives (no second snapshot, no repeat) is shown with a {@link Fence}: markers put after the
 * test's writes, awaited, with nothing unexpected before them.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class EtcdSourceConnectorIT {
  private static final String SOURCE = "io.demandfold.connect.EtcdSourceConnector";

  @RegisterExtension
  static final ConnectWorkerExtension connect = ConnectWorkerExtension.named("source-worker");

  private static ConnectWorker worker() {
    return connect.worker();
  }

  /** The shipped source config, reading {@code prefix} into {@code topic}. */
  static Map<String, String> source(Services services, String prefix, String topic)
      throws Exception {
    return ConnectWorker.shipped(
        "etcd-source.json",
        Map.of(
            "topic",
            topic,
            "etcd.endpoints",
            services.etcdEndpoint(),
            "etcd.prefix",
            prefix,
            "poll.timeout.ms",
            "200"));
  }

  /** An external writer: plain puts of stored records, remembering each put per key. */
  static final class Writer {
    final KV kv;
    final EtcdLayout layout;
    final Map<String, List<String>> puts = new LinkedHashMap<>();
    int count;

    Writer(Services services, EtcdLayout layout) {
      this.kv = services.etcdClient().getKVClient();
      this.layout = layout;
    }

    /** Puts the record of shard {@code shard} of {@code target}, generation {@code g}. */
    void put(String target, String shard, long g) throws Exception {
      ShardRecord r = Events.fold(Events.writer(shard, g, 1, 1_764_400_000_000L + g));
      String key = Keys.shardKey(target, shard);
      kv.put(bytes(layout.shardKey(key)), ByteSequence.from(JsonCodec.encodeRecord(r)))
          .get(10, TimeUnit.SECONDS);
      expect(target, key, r);
    }

    /** Puts two records in one transaction: one revision, two events. */
    void putTogether(String target, String a, String b, long g) throws Exception {
      ShardRecord ra = Events.fold(Events.writer(a, g, 1, g));
      ShardRecord rb = Events.fold(Events.writer(b, g, 1, g));
      kv.txn()
          .Then(
              Op.put(
                  bytes(layout.shardKey(Keys.shardKey(target, a))),
                  ByteSequence.from(JsonCodec.encodeRecord(ra)),
                  PutOption.DEFAULT),
              Op.put(
                  bytes(layout.shardKey(Keys.shardKey(target, b))),
                  ByteSequence.from(JsonCodec.encodeRecord(rb)),
                  PutOption.DEFAULT))
          .commit()
          .get(10, TimeUnit.SECONDS);
      expect(target, Keys.shardKey(target, a), ra);
      expect(target, Keys.shardKey(target, b), rb);
    }

    /**
     * Puts the {@link Fence}'s markers for a topic of {@code partitions}, after every other write;
     * they are expected like every put.
     */
    List<Fence.Marker> fence(int partitions) throws Exception {
      List<Fence.Marker> markers = Fence.markers("fence", partitions);
      for (Fence.Marker m : markers) {
        put(m.target(), m.shard(), 1);
      }
      return markers;
    }

    void putRaw(String key, String value) throws Exception {
      kv.put(bytes(key), bytes(value)).get(10, TimeUnit.SECONDS);
    }

    private void expect(String target, String key, ShardRecord r) {
      String event =
          new String(JsonCodec.encodeEvent(new DemandEvent(target, r)), StandardCharsets.UTF_8);
      puts.computeIfAbsent(key, k -> new ArrayList<>()).add(event);
      count++;
    }
  }

  static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  /** Values per key, in the order of the topic (per partition, which a key never leaves). */
  static Map<String, List<String>> byKey(List<ConsumerRecord<byte[], byte[]>> records) {
    Map<String, List<String>> out = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      out.computeIfAbsent(new String(r.key(), StandardCharsets.UTF_8), k -> new ArrayList<>())
          .add(new String(r.value(), StandardCharsets.UTF_8));
    }
    return out;
  }

  static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    var h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  @Test
  void shouldSnapshotThenWatchEveryPutOnceAcrossAConnectorRestart(Services services)
      throws Exception {
    String name = services.uniqueName("source");
    String topic = name + ".events";
    services.createTopic(topic, 3);
    EtcdLayout layout = new EtcdLayout("/" + name);
    Writer w = new Writer(services, layout);
    for (int s = 0; s < 60; s++) {
      w.put("t" + (s % 3), "s" + s, 1);
    }
    // what is not a valid record is skipped, and a deletion retracts nothing
    w.putRaw(layout.shardRecordsPrefix() + "not-hex/s", "{}");
    w.putRaw(layout.shardRecordsPrefix() + Keys.shardKey("t0", "v9"), "{\"v\":9}");
    w.putRaw(layout.shardRecordsPrefix() + Keys.shardKey("t0", "junk"), "junk");
    w.kv.delete(bytes(layout.shardRecordsPrefix() + Keys.shardKey("t0", "junk"))).get();
    w.putRaw(layout.prefix() + "/demand/" + Keys.hex("t0"), "{}"); // a table record: not watched

    Map<String, String> config = new HashMap<>(source(services, layout.prefix(), topic));
    config.put("batch.size", "25"); // three snapshot pages
    worker().create(name, config);
    List<ConsumerRecord<byte[], byte[]>> snapshot = Harness.awaitRecords(services, topic, 60);
    assertThat(snapshot).hasSize(60);
    assertThat(snapshot).allMatch(r -> "snapshot".equals(header(r, "demandfold.etcd.phase")));

    for (int s = 0; s < 30; s++) {
      w.put("t" + (s % 3), "s" + s, 2);
    }
    w.putTogether("t1", "pair-a", "pair-b", 5);
    Harness.awaitRecords(services, topic, w.count);

    worker().stop(name);
    for (int s = 20; s < 40; s++) {
      w.put("t" + (s % 3), "s" + s, 3);
    }
    worker().resume(name);
    for (int s = 0; s < 10; s++) {
      w.put("t" + (s % 3), "new" + s, 1);
    }
    Harness.awaitRecords(services, topic, w.count);
    // nothing more may arrive: no second snapshot, no repeat, before the fence's markers
    List<ConsumerRecord<byte[], byte[]>> all = Fence.await(services, topic, w.fence(3));
    assertThat(all).hasSize(w.count);
    assertThat(byKey(all)).isEqualTo(w.puts);
    assertThat(all)
        .filteredOn(r -> "snapshot".equals(header(r, "demandfold.etcd.phase")))
        .as("one snapshot, at the first start")
        .hasSize(60);
    worker().delete(name);
  }

  @Test
  void shouldStartAFreshSnapshotWhenEtcdCompactedTheRevisionToResumeFrom(Services services)
      throws Exception {
    String name = services.uniqueName("compacted");
    String topic = name + ".events";
    services.createTopic(topic, 1);
    EtcdLayout layout = new EtcdLayout("/" + name);
    Writer w = new Writer(services, layout);
    for (int s = 0; s < 10; s++) {
      w.put("t", "s" + s, 1);
    }
    Map<String, String> config = new HashMap<>(source(services, layout.prefix(), topic));
    config.put("encoding", "avro");
    worker().create(name, config);
    Harness.awaitRecords(services, topic, 10);
    worker().stop(name);

    for (int s = 0; s < 5; s++) {
      w.put("t", "s" + s, 2);
    }
    long now = EtcdSinkConnectorIT.revision(services);
    w.kv.compact(now).get(10, TimeUnit.SECONDS);
    worker().resume(name);

    Map<String, String> expected = new HashMap<>();
    w.puts.forEach((k, v) -> expected.put(k, v.get(v.size() - 1)));
    Harness.awaitRecords(services, topic, 20);
    // one fresh snapshot of the 10 keys, then the marker from the watch: nothing else before it
    List<Fence.Marker> fence = w.fence(1);
    List<ConsumerRecord<byte[], byte[]>> all = Fence.await(services, topic, fence);
    assertThat(all).hasSize(21);
    assertThat(new String(all.get(20).key(), StandardCharsets.UTF_8)).isEqualTo(fence.get(0).key());
    assertThat(header(all.get(20), "demandfold.etcd.phase")).isEqualTo("watch");
    List<ConsumerRecord<byte[], byte[]>> again = all.subList(10, 20);
    assertThat(again).allMatch(r -> "snapshot".equals(header(r, "demandfold.etcd.phase")));
    Map<String, String> latest = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : again) {
      assertThat(AvroCodec.isSingleObject(r.value())).isTrue();
      DemandEvent e = EventDecoder.decode(r.value());
      latest.put(e.key(), new String(JsonCodec.encodeEvent(e), StandardCharsets.UTF_8));
    }
    assertThat(latest).isEqualTo(expected);
    worker().delete(name);
  }

  @Test
  void shouldResumeASnapshotAfterTheLastKeyItDelivered(Services services) throws Exception {
    String name = services.uniqueName("resumed");
    String topic = name + ".events";
    services.createTopic(topic, 1);
    EtcdLayout layout = new EtcdLayout("/" + name);
    Writer w = new Writer(services, layout);
    for (int s = 0; s < 10; s++) {
      w.put("t", "s" + s, 1);
    }
    long revision = EtcdSinkConnectorIT.revision(services);
    w.put("t", "s0", 2); // after the snapshot's revision: comes from the watch
    worker().createStopped(name, source(services, layout.prefix(), topic));
    // as if a task had stopped after delivering s0..s4 of a snapshot at that revision
    String s4 = layout.shardKey(Keys.shardKey("t", "s4"));
    worker()
        .setOffset(
            name,
            Map.of("etcd.prefix", layout.prefix()),
            Map.of("phase", "snapshot", "revision", revision, "key", s4));
    worker().resume(name);

    Harness.awaitRecords(services, topic, 6); // the task runs: the fence comes after its start
    List<Fence.Marker> fence = w.fence(1);
    List<ConsumerRecord<byte[], byte[]>> records = Fence.await(services, topic, fence);
    assertThat(records)
        .map(r -> new String(r.key(), StandardCharsets.UTF_8))
        .containsExactly(
            Keys.shardKey("t", "s5"),
            Keys.shardKey("t", "s6"),
            Keys.shardKey("t", "s7"),
            Keys.shardKey("t", "s8"),
            Keys.shardKey("t", "s9"),
            Keys.shardKey("t", "s0"),
            fence.get(0).key());
    assertThat(records.get(5).value()).asString().contains("\"sealed_through\":2");
    assertThat(header(records.get(5), "demandfold.etcd.phase")).isEqualTo("watch");
    worker().delete(name);
  }

  @Test
  void shouldRejectBadSettingsNamingEachOne(Services services) throws Exception {
    Map<String, String> config = new HashMap<>(source(services, "/x", "demand.events"));
    config.put("name", "rejected");
    config.put("topic", "no spaces allowed");
    config.put("encoding", "xml");
    config.put("batch.size", "0");
    config.put("etcd.endpoints", "");
    Map<String, String> errors = worker().validate(SOURCE, config);
    assertThat(errors).containsOnlyKeys("topic", "encoding", "batch.size", "etcd.endpoints");
    errors.forEach((setting, message) -> assertThat(message).contains(setting));

    Map<String, String> converter = new HashMap<>(source(services, "/x", "demand.events"));
    converter.put("name", "rejected");
    converter.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
    assertThat(worker().validate(SOURCE, converter))
        .containsOnlyKeys("value.converter")
        .hasEntrySatisfying(
            "value.converter",
            m -> assertThat(m).contains("org.apache.kafka.connect.converters.ByteArrayConverter"));
  }
}
