package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.demandfold.core.Events;
import io.demandfold.core.Join;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.MirrorMetrics;
import io.demandfold.mirror.MirrorOutcome;
import io.demandfold.mirror.MirrorResult;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Batched shard mirroring against a real etcd: one read and one compare-and-swap transaction for a
 * whole batch, a lost race falls back key by key without losing the other writer's data, and a
 * record of a newer schema inside a batch is left alone while the rest is written.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class EtcdMirrorBatchIT {
  private static final String HEX = "6f7264657273";

  @Test
  void shouldWriteAWholeBatchWithOneReadAndOneCompareAndSwap(Services services) throws Exception {
    EtcdLayout layout = new EtcdLayout("/" + services.uniqueName("batch"));
    MirrorMetrics metrics = MirrorMetrics.detached();
    EtcdMirror mirror = mirror(services, layout, metrics);
    List<String> keys = shardKeys(100);
    List<ShardRecord> records = records(keys, 10);

    List<MirrorOutcome> first = settle(mirror.mirrorShards(keys, records));

    assertThat(first).extracting(MirrorOutcome::result).containsOnly(MirrorResult.WRITTEN);
    assertThat(metrics.etcdRequests()).isEqualTo(2);
    for (int i = 0; i < keys.size(); i++) {
      assertThat(stored(services, layout, keys.get(i)))
          .isEqualTo(JsonCodec.encodeRecord(records.get(i)));
    }

    List<MirrorOutcome> again = settle(mirror.mirrorShards(keys, records));

    assertThat(again).extracting(MirrorOutcome::result).containsOnly(MirrorResult.UNCHANGED);
    assertThat(metrics.etcdRequests()).as("the cache answers an unchanged batch").isEqualTo(2);
  }

  @Test
  void shouldFallBackKeyByKeyAndKeepTheOtherWritersDataWhenTheBatchLosesARace(Services services)
      throws Exception {
    EtcdLayout layout = new EtcdLayout("/" + services.uniqueName("batch-race"));
    MirrorMetrics metrics = MirrorMetrics.detached();
    EtcdMirror mirror = mirror(services, layout, metrics);
    List<String> keys = shardKeys(20);
    List<ShardRecord> old = records(keys, 10);
    settle(mirror.mirrorShards(keys, old));
    String raced = keys.get(7);
    ShardRecord other = Events.executor(raced.substring(HEX.length() + 1), 12, 11, 1, 2_000);
    kv(services)
        .put(bytes(layout.shardKey(raced)), ByteSequence.from(JsonCodec.encodeRecord(other)))
        .get();
    long before = metrics.etcdRequests();
    List<ShardRecord> newer = records(keys, 20);

    List<MirrorOutcome> outcomes = settle(mirror.mirrorShards(keys, newer));

    assertThat(outcomes).extracting(MirrorOutcome::result).containsOnly(MirrorResult.WRITTEN);
    for (int i = 0; i < keys.size(); i++) {
      assertThat(outcomes.get(i).casRetries())
          .as("only the key another writer changed lost a race: %s", keys.get(i))
          .isEqualTo(i == 7 ? 1 : 0);
    }
    assertThat(metrics.etcdRequests() - before)
        .as("the batch, then one compare-and-swap per key")
        .isEqualTo(1 + keys.size());
    for (int i = 0; i < keys.size(); i++) {
      ShardRecord storedBefore = i == 7 ? other : old.get(i);
      assertThat(JsonCodec.decodeRecord(stored(services, layout, keys.get(i))))
          .as(keys.get(i))
          .isEqualTo(Join.join(storedBefore, newer.get(i)));
    }
    assertThat(JsonCodec.decodeRecord(stored(services, layout, raced)).mergedThrough())
        .as("the other writer's merge survives")
        .hasValue(11L);
  }

  @Test
  void shouldLeaveANewerSchemaAloneAndWriteTheRestOfTheBatch(Services services) throws Exception {
    EtcdLayout layout = new EtcdLayout("/" + services.uniqueName("batch-newer"));
    EtcdMirror mirror = mirror(services, layout, MirrorMetrics.detached());
    List<String> keys = shardKeys(10);
    String newer = "{\"v\":2,\"shard\":\"" + keys.get(3).substring(HEX.length() + 1) + "\"}";
    kv(services)
        .put(bytes(layout.shardKey(keys.get(3))), ByteSequence.from(newer, StandardCharsets.UTF_8))
        .get();

    List<MirrorOutcome> outcomes = settle(mirror.mirrorShards(keys, records(keys, 5)));

    for (int i = 0; i < keys.size(); i++) {
      assertThat(outcomes.get(i).result())
          .as(keys.get(i))
          .isEqualTo(i == 3 ? MirrorResult.REFUSED_NEWER_SCHEMA : MirrorResult.WRITTEN);
    }
    assertThat(new String(stored(services, layout, keys.get(3)), StandardCharsets.UTF_8))
        .isEqualTo(newer);
  }

  @Test
  void shouldRePruneARecordWrittenUnderTheOldRuleWhenItJoinsANewEvent(Services services)
      throws Exception {
    EtcdLayout layout = new EtcdLayout("/" + services.uniqueName("old-rule"));
    EtcdMirror mirror = mirror(services, layout, MirrorMetrics.detached());
    String key = HEX + "/s";
    // g1..g100 flushed, merged through 90, pruned by the old rule: g1..g63 and g100
    StringBuilder old =
        new StringBuilder(
            "{\"v\":1,\"shard\":\"s\",\"sealed_through\":100,\"sealed_bytes_through\":10000,"
                + "\"merged_through\":90,\"flushed_at_ms\":100000,\"writer_epoch\":1,"
                + "\"source\":\"writer\",\"sealed_times\":{");
    for (int g = 1; g <= 63; g++) {
      old.append('"').append(g).append("\":").append(g * 1000).append(',');
    }
    old.append("\"100\":100000}}");
    kv(services).put(bytes(layout.shardKey(key)), bytes(old.toString())).get();

    ShardRecord next = Events.writer("s", 101, 1, 101_000);
    MirrorOutcome outcome = settle(mirror.mirrorShards(List.of(key), List.of(next))).get(0);

    assertThat(outcome.result()).isEqualTo(MirrorResult.WRITTEN);
    ShardRecord stored = JsonCodec.decodeRecord(stored(services, layout, key));
    // the 64 highest of what both sides know above merged 90: g100, g101
    assertThat(stored.sealedTimes().asMap())
        .containsExactly(entry(100L, 100_000L), entry(101L, 101_000L));
    assertThat(stored.sealedThrough()).isEqualTo(101);
    assertThat(stored.mergedThrough()).hasValue(90);
  }

  private static EtcdMirror mirror(Services services, EtcdLayout layout, MirrorMetrics metrics) {
    return EtcdMirror.builder()
        .kv(kv(services))
        .layout(layout)
        .maxRetries(5)
        .timeout(Duration.ofSeconds(10))
        .maxRequestBytes(1_572_864)
        .metrics(metrics)
        .cacheBytes(1 << 20)
        .build();
  }

  private static KV kv(Services services) {
    return services.etcdClient().getKVClient();
  }

  private static List<String> shardKeys(int n) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      keys.add(HEX + "/s" + i);
    }
    return keys;
  }

  private static List<ShardRecord> records(List<String> keys, long sealed) {
    List<ShardRecord> out = new ArrayList<>();
    for (String k : keys) {
      out.add(Events.fold(Events.writer(k.substring(HEX.length() + 1), sealed, 1, 1_000 + sealed)));
    }
    return out;
  }

  private static List<MirrorOutcome> settle(List<CompletableFuture<MirrorOutcome>> fs) {
    return fs.stream().map(CompletableFuture::join).toList();
  }

  private static byte[] stored(Services services, EtcdLayout layout, String shardKey)
      throws Exception {
    List<KeyValue> kvs = kv(services).get(bytes(layout.shardKey(shardKey))).get().getKvs();
    assertThat(kvs).as(shardKey).hasSize(1);
    return kvs.get(0).getValue().getBytes();
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
