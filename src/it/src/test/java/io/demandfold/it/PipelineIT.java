package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.app.DemandfoldService;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Events;
import io.demandfold.core.Fold;
import io.demandfold.core.InvalidEventException.Reason;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.core.codec.ViewJson;
import io.demandfold.docs.OutputSchemas;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.MirrorMetrics;
import io.demandfold.mirror.MirrorResult;
import io.demandfold.mirror.RecordKind;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** The pipeline against a real broker and a real etcd: exactness, replay, bad input, others. */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class PipelineIT {

  @Test
  void shouldMirrorExactlyTheOfflineFoldOfNamedCasesAndRandomStreamsThenReplayIt(Services services)
      throws Exception {
    try (Harness h = new Harness(services, "exact")) {
      Random rnd = new Random(20261129);
      List<DemandEvent> events = new ArrayList<>();
      for (String line : Files.readAllLines(Path.of("examples/named-cases.jsonl"))) {
        events.add(JsonCodec.decodeEvent(line.getBytes(StandardCharsets.UTF_8)));
      }
      for (int i = 0; i < 20; i++) {
        events.addAll(RandomStreams.stream(rnd, "stream" + i, 3, 20, 500));
      }
      Fold expected = Harness.fold(events);
      assertThat(expected.shardCount()).isGreaterThan(20 * 20 - 1);

      h.start();
      h.produce(events, rnd);
      h.awaitEtcd(expected);

      Map<String, String> shardLines = h.latest(h.name + ".shard-records");
      Map<String, String> tableLines = h.latest(h.name + ".table-demand");
      for (var t : expected.targets().entrySet()) {
        for (ShardRecord r : t.getValue().values()) {
          assertThat(shardLines.get(Keys.shardKey(t.getKey(), r.shard())))
              .isEqualTo(ViewJson.shardLine(t.getKey(), r));
        }
        assertThat(tableLines.get(Keys.hex(t.getKey())))
            .isEqualTo(ViewJson.tableLine(t.getKey(), expected.table(t.getKey())));
      }
      // every record of both output topics, not only the latest per key, as documented in schemas/
      List<ConsumerRecord<byte[], byte[]>> shardRecords =
          services.readAll(h.name + ".shard-records");
      List<ConsumerRecord<byte[], byte[]>> tableRecords =
          services.readAll(h.name + ".table-demand");
      assertThat(shardRecords).hasSizeGreaterThanOrEqualTo(shardLines.size());
      assertThat(tableRecords).hasSizeGreaterThanOrEqualTo(tableLines.size());
      assertThat(
              OutputSchemas.errors(shardRecords, OutputSchemas.SHARD_KEY, OutputSchemas.SHARD_LINE))
          .isEmpty();
      assertThat(
              OutputSchemas.errors(tableRecords, OutputSchemas.TABLE_KEY, OutputSchemas.TABLE_LINE))
          .isEmpty();

      Map<String, String> mirrored = h.etcdState();
      try (Harness replay = new Harness(services, "replay")) {
        DemandfoldService r =
            replay.start(
                Map.of(
                    "topics.events", h.eventsTopic,
                    "etcd.prefix", replay.prefix));
        replay.awaitEtcd(expected);
        Map<String, String> replayed = new LinkedHashMap<>();
        replay
            .etcdState()
            .forEach((k, v) -> replayed.put(h.prefix + k.substring(replay.prefix.length()), v));
        assertThat(replayed).isEqualTo(mirrored);
        assertThat(r.metrics().foldedCounts().changed()).isGreaterThan(0);
      }
    }
  }

  @Test
  void shouldDeadLetterEveryKindOfBadInputAndFoldTheValidEventsAroundIt(Services services)
      throws Exception {
    try (Harness h = new Harness(services, "bad")) {
      DemandfoldService s = h.start();
      String key = Keys.shardKey("orders", "s1");
      byte[] k = key.getBytes(StandardCharsets.UTF_8);
      byte[] avro =
          AvroCodec.encodeEvent(new DemandEvent("orders", Events.writer("s1", 3, 1, 3000)));
      byte[] unknownFingerprint = avro.clone();
      unknownFingerprint[5] ^= 0x55;
      String ok = ",\"flushed_at_ms\":1,\"writer_epoch\":1,\"source\":\"writer\"}";
      List<Object[]> corpus =
          List.of(
              bad("undecodable", k, "not an event".getBytes()),
              bad("undecodable", k, java.util.Arrays.copyOf(avro, avro.length - 4)),
              bad("unknown_schema", k, unknownFingerprint),
              bad("unknown_version", k, json("{\"v\":999,\"target\":\"orders\",\"shard\":\"s1\"}")),
              bad(
                  "invalid_field",
                  k,
                  json("{\"target\":\"orders\",\"shard\":\"s1\",\"sealed_through\":\"7\"" + ok)),
              bad("null_key", null, avro),
              bad("null_value", k, null),
              bad("invalid_key", "6f72646572/".getBytes(), avro),
              bad("key_mismatch", Keys.shardKey("orders", "s2").getBytes(), avro),
              bad(
                  "invalid_field",
                  k,
                  json("{\"target\":\"orders\",\"shard\":\"s1\",\"sealed_through\":-5" + ok)),
              bad(
                  "invalid_field",
                  k,
                  json("{\"target\":\"orders\",\"shard\":\"\",\"sealed_through\":5" + ok)),
              bad(
                  "invalid_field",
                  k,
                  json(
                      "{\"target\":\"orders\",\"shard\":\"s1\",\"sealed_through\":5,\"flushed_at_ms\":1,\"writer_epoch\":1,\"source\":\"planner\"}")),
              bad("invalid_key", new byte[] {(byte) 0xff, (byte) 0xfe}, avro));

      List<DemandEvent> valid = new ArrayList<>();
      for (int g = 1; g <= corpus.size() + 1; g++) {
        valid.add(new DemandEvent("orders", Events.writer("s1", g, 1, g * 1000L)));
      }
      for (int i = 0; i < corpus.size(); i++) {
        h.produceRaw(k, JsonCodec.encodeEvent(valid.get(i)));
        h.produceRaw((byte[]) corpus.get(i)[1], (byte[]) corpus.get(i)[2]);
      }
      h.produceRaw(k, AvroCodec.encodeEvent(valid.get(corpus.size())));
      h.flush();

      h.awaitEtcd(Harness.fold(valid));
      List<ConsumerRecord<byte[], byte[]>> dead =
          Harness.awaitRecords(services, h.name + ".dlq", corpus.size());
      assertThat(dead).hasSize(corpus.size());
      // the DLQ has one partition and the events six: match by content, not order
      List<ConsumerRecord<byte[], byte[]>> unmatched = new ArrayList<>(dead);
      for (Object[] c : corpus) {
        ConsumerRecord<byte[], byte[]> r =
            unmatched.stream()
                .filter(d -> java.util.Arrays.equals(d.key(), (byte[]) c[1]))
                .filter(d -> java.util.Arrays.equals(d.value(), (byte[]) c[2]))
                .findFirst()
                .orElseThrow(() -> new AssertionError("not dead-lettered: " + c[0]));
        unmatched.remove(r);
        assertThat(header(r, "demandfold.dlq.reason")).isEqualTo(c[0]);
        assertThat(header(r, "demandfold.dlq.message")).isNotBlank();
        assertThat(header(r, "__streams.errors.topic")).isEqualTo(h.eventsTopic);
        assertThat(header(r, "__streams.errors.partition")).isNotNull();
        assertThat(Long.parseLong(header(r, "__streams.errors.offset"))).isGreaterThanOrEqualTo(0);
      }
      assertThat(s.metrics().dlqCount(Reason.INVALID_FIELD)).isEqualTo(4);
      assertThat(s.metrics().dlqCount(Reason.KEY_MISMATCH)).isEqualTo(1);
    }
  }

  @Test
  void shouldNeverOverwriteARecordOfANewerSchema(Services services) throws Exception {
    try (Harness h = new Harness(services, "newer")) {
      String shardKey = Keys.shardKey("orders", "s1");
      ByteSequence etcdKey = bytes(h.layout().shardKey(shardKey));
      String newer = "{\"v\":999,\"shard\":\"s1\",\"sealed_through\":1,\"something\":\"else\"}";
      services.etcdClient().getKVClient().put(etcdKey, bytes(newer)).get(10, TimeUnit.SECONDS);
      long revision = kv(services, etcdKey).getModRevision();

      DemandfoldService s = h.start();
      List<DemandEvent> events =
          List.of(
              new DemandEvent("orders", Events.writer("s1", 5, 1, 5000)),
              new DemandEvent("orders", Events.writer("s2", 5, 1, 5000)));
      h.produce(events, new Random(1));
      Harness.await(
          "a shard write refused for the newer schema",
          () -> s.metrics().mirror().count(RecordKind.SHARD, MirrorResult.REFUSED_NEWER_SCHEMA),
          n -> n >= 1,
          Harness.PATIENCE);
      String other = h.layout().shardKey(Keys.shardKey("orders", "s2"));
      String otherValue =
          new String(
              JsonCodec.encodeRecord(Harness.fold(events).shards("orders").get("s2")),
              StandardCharsets.UTF_8);
      h.awaitEtcdHolds(Map.of(other, otherValue));

      assertThat(kv(services, etcdKey).getModRevision()).isEqualTo(revision);
      assertThat(kv(services, etcdKey).getValue().toString(StandardCharsets.UTF_8))
          .isEqualTo(newer);
      Harness.awaitEquals(
          "no dirty shard key",
          () -> s.metrics().dirtyKeys(RecordKind.SHARD),
          0L,
          Harness.PATIENCE);
    }
  }

  @Test
  void shouldConvergeToTheJoinOfBothWritersWhenAnotherWriterCasesTheSameKeys(Services services)
      throws Exception {
    try (Harness h = new Harness(services, "writers")) {
      Random rnd = new Random(7);
      List<DemandEvent> ours = RandomStreams.stream(rnd, "w", 2, 10, 1500);
      // the same ten shards and two of their own: where ours are ahead, the cut of merged flush
      // times leaves nothing of theirs, so the two shards only they write keep the folds apart
      List<DemandEvent> theirs = RandomStreams.stream(new Random(8), "w", 2, 12, 600);
      h.start();
      EtcdMirror external = h.externalWriter(MirrorMetrics.detached());
      Map<MirrorResult, Integer> outcomes = new java.util.concurrent.ConcurrentHashMap<>();
      CompletableFuture<Void> writer =
          CompletableFuture.runAsync(
              () -> {
                // like a reference publisher: retry a key until it is settled
                for (DemandEvent e : theirs) {
                  MirrorResult r;
                  do {
                    r = external.mirrorShard(e.key(), e.record()).join().result();
                    outcomes.merge(r, 1, Integer::sum);
                  } while (!r.done());
                }
              });
      h.produce(ours, rnd);
      writer.get(300, TimeUnit.SECONDS);
      assertThat(outcomes.getOrDefault(MirrorResult.WRITTEN, 0)).isGreaterThan(100);

      List<DemandEvent> all = new ArrayList<>(ours);
      all.addAll(theirs);
      Fold both = Harness.fold(all);
      Fold kafkaOnly = Harness.fold(ours);
      Map<String, String> want = new java.util.TreeMap<>();
      Harness.expectedEtcd(both, h.layout())
          .forEach(
              (key, v) -> {
                if (key.startsWith(h.layout().shardRecordsPrefix())) {
                  want.put(key, v);
                }
              });
      h.awaitEtcdHolds(want);
      Map<String, String> shardsOnly = new java.util.TreeMap<>();
      h.etcdState()
          .forEach(
              (key, v) -> {
                if (key.startsWith(h.layout().shardRecordsPrefix())) {
                  shardsOnly.put(key, v);
                }
              });
      assertThat(shardsOnly).isEqualTo(want);
      assertThat(Harness.expectedEtcd(kafkaOnly, h.layout()))
          .isNotEqualTo(Harness.expectedEtcd(both, h.layout()));
    }
  }

  private static KeyValue kv(Services services, ByteSequence key) throws Exception {
    return services.etcdClient().getKVClient().get(key).get(10, TimeUnit.SECONDS).getKvs().get(0);
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  private static Object[] bad(String reason, byte[] key, byte[] value) {
    return new Object[] {reason, key, value};
  }

  private static byte[] json(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
