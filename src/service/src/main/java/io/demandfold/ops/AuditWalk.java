package io.demandfold.ops;

import io.demandfold.core.Fold;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.ops.Audit.Divergence;
import io.demandfold.ops.Audit.Kind;
import io.etcd.jetcd.KV;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The merge-walk of a streamed audit: the folded buckets, in key order, against the shard prefix
 * and the table prefix of etcd at one revision. Every shard key sorts before every table key
 * ({@code demand-events/} before {@code demand/}), so the listing is the shard divergences, then
 * the table ones, the first {@code listed} of them kept.
 */
final class AuditWalk {
  private final EtcdLayout layout;
  private final boolean tables;
  private final int maxRequestBytes;
  private final int listed;
  private final EtcdWalk shardWalk;
  private final EtcdWalk tableWalk;
  private final List<Divergence> shardList = new ArrayList<>();
  private final List<Divergence> tableList = new ArrayList<>();
  private final Map<Kind, Long> counts = new EnumMap<>(Kind.class);
  private long compared;

  AuditWalk(
      KV kv, EtcdLayout layout, boolean tables, int maxRequestBytes, long timeoutMs, int listed)
      throws Exception {
    this.layout = layout;
    this.tables = tables;
    this.maxRequestBytes = maxRequestBytes;
    this.listed = listed;
    this.shardWalk = new EtcdWalk(kv, layout.shardRecordsPrefix(), 0, timeoutMs);
    this.tableWalk =
        tables
            ? new EtcdWalk(kv, layout.tableRecordsPrefix(), shardWalk.revision(), timeoutMs)
            : null;
  }

  long revision() {
    return shardWalk.revision();
  }

  /** Compares the keys of one folded bucket. */
  void bucket(Fold fold) throws Exception {
    for (var t : fold.targets().entrySet()) {
      for (ShardRecord r : t.getValue().values()) {
        String key = layout.shardKey(Keys.shardKey(t.getKey(), r.shard()));
        compare(shardWalk, shardList, key, JsonCodec.encodeRecord(r));
      }
      if (tables) {
        String key = layout.tableKey(Keys.hex(t.getKey()));
        byte[] value =
            EtcdMirror.tableValue(key, TableRecord.of(t.getValue().values()), maxRequestBytes);
        if (value != null) {
          compare(tableWalk, tableList, key, value);
        }
      }
    }
  }

  /** The report, once every bucket is compared: what etcd holds beyond is extra. */
  Audit.Report finish() throws Exception {
    shardWalk.rest((k, v) -> extra(shardList, k, v));
    if (tables) {
      tableWalk.rest((k, v) -> extra(tableList, k, v));
    }
    List<Divergence> all = new ArrayList<>(shardList);
    all.addAll(tableList);
    return new Audit.Report(
        (int) compared, List.copyOf(all.subList(0, Math.min(listed, all.size()))), counts);
  }

  private void compare(EtcdWalk walk, List<Divergence> list, String key, byte[] expected)
      throws Exception {
    byte[] actual = walk.seek(key, (k, v) -> extra(list, k, v));
    compared++;
    if (actual == null) {
      add(list, new Divergence(key, Kind.MISSING, text(expected), null));
    } else if (!Arrays.equals(actual, expected)) {
      add(list, new Divergence(key, Kind.DIFFERENT, text(expected), text(actual)));
    }
  }

  private void extra(List<Divergence> list, String key, byte[] actual) {
    compared++;
    add(list, new Divergence(key, Kind.EXTRA, null, text(actual)));
  }

  private void add(List<Divergence> list, Divergence d) {
    counts.merge(d.kind(), 1L, Long::sum);
    if (list.size() < listed) {
      list.add(d);
    }
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
