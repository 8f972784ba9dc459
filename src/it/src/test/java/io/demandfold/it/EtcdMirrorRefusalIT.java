package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.DerivedTable;
import io.demandfold.core.Events;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;
import io.demandfold.core.codec.TableJson;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.MirrorMetrics;
import io.demandfold.mirror.MirrorOutcome;
import io.demandfold.mirror.MirrorResult;
import io.demandfold.mirror.RecordKind;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the mirror does with a stored value it cannot join, against a real etcd: only a value that
 * is not JSON is replaced; JSON it cannot read (a field out of range, an unknown source, a repeated
 * key, another shard's record, a table entry without a field, a version too large for a long) is
 * left as it is, revision and all, and counted. And a table record just under the request limit
 * once its key is counted as often as the request carries it is written compact, not refused.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class EtcdMirrorRefusalIT {
  private static final String HEX = Keys.hex("orders");
  private static final int MAX_REQUEST_BYTES = 1_572_864;

  private static String record(String shard, String sealedThrough, String extra) {
    return "{\"v\":1,\"shard\":\""
        + shard
        + "\",\"sealed_through\":"
        + sealedThrough
        + ",\"flushed_at_ms\":1,\"writer_epoch\":1,\"source\":\"writer\""
        + extra
        + "}";
  }

  @Test
  void shouldLeaveJsonItCannotJoinAloneAndReplaceOnlyWhatIsNotJson(Services services)
      throws Exception {
    EtcdLayout layout = new EtcdLayout("/" + services.uniqueName("refuse"));
    Map<String, String> refused =
        Map.of(
            "beyond-u64", record("beyond-u64", "18446744073709551615", ""),
            "unknown-source", record("unknown-source", "3", "").replace("\"writer\"", "\"robot\""),
            "repeated-key", record("repeated-key", "3", ",\"sealed_times\":{\"2\":1,\"2\":5}"),
            "not-an-object", "[1,2,3]",
            "other-shard", record("somebody-else", "3", ""));
    Map<String, String> newer =
        Map.of(
            "huge-version",
            record("huge-version", "3", "").replace("\"v\":1", "\"v\":100000000000000000000"));
    Map<String, String> notJson = Map.of("truncated", "{\"v\":1,\"shard\":\"trunc");
    MirrorMetrics metrics = MirrorMetrics.detached();
    EtcdMirror mirror = mirror(services, layout, metrics);

    for (var cases : List.of(refused, newer, notJson)) {
      for (var c : cases.entrySet()) {
        String key = HEX + "/" + c.getKey();
        put(services, layout.shardKey(key), c.getValue());
        long revision = stored(services, layout.shardKey(key)).getModRevision();
        ShardRecord ours = Events.fold(Events.writer(c.getKey(), 7, 1, 7000));

        MirrorOutcome o = mirror.mirrorShards(List.of(key), List.of(ours)).get(0).join();

        KeyValue after = stored(services, layout.shardKey(key));
        if (cases == notJson) {
          assertThat(o.result()).as(c.getKey()).isEqualTo(MirrorResult.WRITTEN);
          assertThat(o.replacedInvalid()).as(c.getKey()).isTrue();
          assertThat(after.getValue().toString(StandardCharsets.UTF_8)).contains("\"v\":1");
        } else {
          assertThat(o.result())
              .as(c.getKey())
              .isEqualTo(
                  cases == newer
                      ? MirrorResult.REFUSED_NEWER_SCHEMA
                      : MirrorResult.REFUSED_UNREADABLE);
          assertThat(after.getModRevision()).as(c.getKey()).isEqualTo(revision);
          assertThat(after.getValue().toString(StandardCharsets.UTF_8))
              .as(c.getKey())
              .isEqualTo(c.getValue());
        }
      }
    }
    assertThat(metrics.count(RecordKind.SHARD, MirrorResult.REFUSED_UNREADABLE))
        .isEqualTo(refused.size());
  }

  @Test
  void shouldLeaveATableRecordWithAnEntryItCannotReadAlone(Services services) throws Exception {
    EtcdLayout layout = new EtcdLayout("/" + services.uniqueName("refuse-table"));
    EtcdMirror mirror = mirror(services, layout, MirrorMetrics.detached());
    TableRecord ours = TableRecord.of(List.of(Events.fold(Events.writer("a", 5, 1, 5000))));
    String missingField =
        "{\"v\":1,\"shards\":{\"theirs\":{\"sealed\":{\"epoch\":1,\"value\":9},\"merged\":null,"
            + "\"sealed_bytes\":1},\"broken\":{\"merged\":null}}}";
    String hugeVersion = "{\"v\":100000000000000000000,\"shards\":{}}";
    for (String stored : List.of(missingField, hugeVersion)) {
      String hex = Keys.hex("t" + stored.length());
      put(services, layout.tableKey(hex), stored);
      long revision = stored(services, layout.tableKey(hex)).getModRevision();

      MirrorOutcome o = mirror.mirrorTable(hex, ours).join();

      assertThat(o.result())
          .isEqualTo(
              stored == hugeVersion
                  ? MirrorResult.REFUSED_NEWER_SCHEMA
                  : MirrorResult.REFUSED_UNREADABLE);
      KeyValue after = stored(services, layout.tableKey(hex));
      assertThat(after.getModRevision()).isEqualTo(revision);
      assertThat(after.getValue().toString(StandardCharsets.UTF_8)).isEqualTo(stored);
    }
    String hex = Keys.hex("not-json");
    put(services, layout.tableKey(hex), "{\"v\":1,\"shards\":{");
    assertThat(mirror.mirrorTable(hex, ours).join().result()).isEqualTo(MirrorResult.WRITTEN);
    assertThat(TableJson.decode(stored(services, layout.tableKey(hex)).getValue().getBytes()))
        .isEqualTo(ours);
  }

  @Test
  void shouldWriteATableJustUnderTheLimitCompactOnceTheKeyIsCountedThreeTimes(Services services)
      throws Exception {
    EtcdLayout layout = new EtcdLayout("/" + services.uniqueName("limit"));
    EtcdMirror mirror = mirror(services, layout, MirrorMetrics.detached());
    String hex = Keys.hex("t".repeat(1000));
    int keyBytes = layout.tableKey(hex).getBytes(StandardCharsets.UTF_8).length;
    // a full record longer than the limit less three keys, shorter than the limit less one key
    int target = MAX_REQUEST_BYTES - 2 * keyBytes;
    TableRecord r = tableOfSize(target);
    int full = TableJson.encode(r, Integer.MAX_VALUE).length;
    assertThat(full).isBetween(MAX_REQUEST_BYTES - 3 * keyBytes, MAX_REQUEST_BYTES - keyBytes - 64);

    MirrorOutcome o = mirror.mirrorTable(hex, r).join();

    assertThat(o.result()).as("%s", o.error()).isEqualTo(MirrorResult.WRITTEN);
    String stored =
        stored(services, layout.tableKey(hex)).getValue().toString(StandardCharsets.UTF_8);
    assertThat(stored).endsWith(",\"compact\":true}");
  }

  @Test
  void shouldWriteATableTooLargeEvenCompactWithItsDerivedFieldsAlone(Services services)
      throws Exception {
    EtcdLayout layout = new EtcdLayout("/" + services.uniqueName("derived"));
    int limit = 8192;
    EtcdMirror mirror =
        EtcdMirror.builder()
            .kv(kv(services))
            .layout(layout)
            .maxRetries(5)
            .timeout(Duration.ofSeconds(10))
            .maxRequestBytes(limit)
            .metrics(MirrorMetrics.detached())
            .cacheBytes(1 << 20)
            .build();
    String hex = Keys.hex("wide");
    String theirs =
        "{\"v\":1,\"shards\":{\"theirs\":{\"sealed\":{\"epoch\":1,\"value\":9},"
            + "\"merged\":null,\"sealed_bytes\":1}}}";
    put(services, layout.tableKey(hex), theirs);
    List<ShardRecord> many = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      many.add(Events.fold(Events.writer("s" + i, 2, 1, 1000 + i)));
    }
    TableRecord ours = TableRecord.of(many);
    assertThat(many.size()).isGreaterThan(mirror.tableEntriesThatMayFit());

    MirrorOutcome o = mirror.mirrorTable(hex, ours).join();

    assertThat(o.result()).as("%s", o.error()).isEqualTo(MirrorResult.TOO_LARGE);
    byte[] stored = stored(services, layout.tableKey(hex)).getValue().getBytes();
    assertThat(TableJson.isDerivedOnly(stored)).isTrue();
    String json = new String(stored, StandardCharsets.UTF_8);
    // the view of ours joined with theirs: 300 x 2 generations + their 9
    assertThat(json).contains("\"shard_count\":301", "\"pending_generations\":609");
    assertThat(json.length()).isLessThan(limit);

    // the table stage's path, which never builds the entries: same bytes, nothing to write
    long revision = stored(services, layout.tableKey(hex)).getModRevision();
    TableRecord joined = ours.join(TableJson.decode(theirs.getBytes(StandardCharsets.UTF_8)));
    assertThat(mirror.mirrorTableView(hex, DerivedTable.of(joined)).join().result())
        .isEqualTo(MirrorResult.UNCHANGED);
    assertThat(stored(services, layout.tableKey(hex)).getModRevision()).isEqualTo(revision);

    // a newer schema is never overwritten, derived-only or not
    String newer = Keys.hex("newer");
    put(services, layout.tableKey(newer), "{\"v\":2,\"shards\":{}}");
    assertThat(mirror.mirrorTableView(newer, DerivedTable.of(ours)).join().result())
        .isEqualTo(MirrorResult.REFUSED_NEWER_SCHEMA);
    assertThat(stored(services, layout.tableKey(newer)).getValue().toString(StandardCharsets.UTF_8))
        .isEqualTo("{\"v\":2,\"shards\":{}}");

    // a stale writer puts back no older view: neither a fold without their shard, derived-only,
    // nor one of a single shard, whose entries fit
    assertThat(mirror.mirrorTableView(hex, DerivedTable.of(ours)).join().result())
        .isEqualTo(MirrorResult.UNCHANGED);
    TableRecord small = TableRecord.of(List.of(Events.fold(Events.writer("a", 3, 1, 500))));
    assertThat(mirror.mirrorTable(hex, small).join().result()).isEqualTo(MirrorResult.UNCHANGED);
    assertThat(stored(services, layout.tableKey(hex)).getModRevision()).isEqualTo(revision);

    // once the target fits again (a larger request limit), the whole record replaces it
    EtcdMirror roomy =
        EtcdMirror.builder()
            .kv(kv(services))
            .layout(layout)
            .maxRetries(5)
            .timeout(Duration.ofSeconds(10))
            .maxRequestBytes(1 << 20)
            .metrics(MirrorMetrics.detached())
            .cacheBytes(1 << 20)
            .build();
    assertThat(roomy.mirrorTable(hex, joined).join().result()).isEqualTo(MirrorResult.WRITTEN);
    TableRecord back =
        TableJson.decode(stored(services, layout.tableKey(hex)).getValue().getBytes());
    assertThat(back).isEqualTo(joined);
    assertThat(stored(services, layout.tableKey(hex)).getModRevision()).isGreaterThan(revision);
  }

  /** A table record whose full JSON is {@code bytes} long, give or take a hundred bytes. */
  private static TableRecord tableOfSize(int bytes) {
    List<ShardRecord> shards = new ArrayList<>();
    shards.add(shard(0, 200));
    int one = size(shards);
    shards.add(shard(1, 200));
    int each = size(shards) - one;
    for (int i = 2; one + (long) i * each < bytes - each; i++) {
      shards.add(shard(i, 200));
    }
    // fill what is left with shorter ids: an entry without its id takes each - 200 - 14 bytes
    int missing = bytes - size(shards);
    while (missing > each - 200) {
      int id = Math.min(200, missing - (each - 200) - 14);
      shards.add(shard(shards.size(), Math.max(1, id)));
      missing = bytes - size(shards);
    }
    return TableRecord.of(shards);
  }

  private static int size(List<ShardRecord> shards) {
    return TableJson.encode(TableRecord.of(shards), Integer.MAX_VALUE).length;
  }

  /** A shard whose id is 14 + {@code x} characters. */
  private static ShardRecord shard(int i, int x) {
    return Events.fold(Events.writer(String.format("shard-%06d-%s", i, "x".repeat(x)), 9, 1, 9000));
  }

  private static EtcdMirror mirror(Services services, EtcdLayout layout, MirrorMetrics metrics) {
    return EtcdMirror.builder()
        .kv(kv(services))
        .layout(layout)
        .maxRetries(5)
        .timeout(Duration.ofSeconds(10))
        .maxRequestBytes(MAX_REQUEST_BYTES)
        .metrics(metrics)
        .cacheBytes(1 << 20)
        .build();
  }

  private static KV kv(Services services) {
    return services.etcdClient().getKVClient();
  }

  private static void put(Services services, String key, String value) throws Exception {
    kv(services)
        .put(
            ByteSequence.from(key, StandardCharsets.UTF_8),
            ByteSequence.from(value, StandardCharsets.UTF_8))
        .get();
  }

  private static KeyValue stored(Services services, String key) throws Exception {
    List<KeyValue> kvs =
        kv(services).get(ByteSequence.from(key, StandardCharsets.UTF_8)).get().getKvs();
    assertThat(kvs).as(key).hasSize(1);
    return kvs.get(0);
  }
}
