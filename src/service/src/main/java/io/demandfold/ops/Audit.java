package io.demandfold.ops;

import io.demandfold.core.Fold;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.mirror.EtcdMirror;
import io.etcd.jetcd.KV;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Compares etcd under a prefix with what the mirror writes for a fold of the log: every shard
 * record, and every table record when tables are mirrored. Byte for byte, since a replay must
 * reproduce etcd exactly.
 */
public final class Audit {
  /** How a key diverges. */
  public enum Kind {
    /** In the fold, not in etcd. */
    MISSING,
    /** In etcd, not in the fold. */
    EXTRA,
    /** In both, with other bytes. */
    DIFFERENT
  }

  /** One divergent key, with the expected and the actual value (null when absent). */
  public record Divergence(String key, Kind kind, String expected, String actual) {}

  /**
   * The outcome of an audit: how many keys were compared, the divergent keys listed (all, or the
   * first ones in key order when {@link #truncated()}), and how many diverged of each kind.
   */
  public record Report(int compared, List<Divergence> divergences, Map<Kind, Long> counts) {
    /** A report listing every divergent key. */
    public Report(int compared, List<Divergence> divergences) {
      this(compared, divergences, countsOf(divergences));
    }

    public boolean identical() {
      return divergent() == 0;
    }

    public long count(Kind kind) {
      return counts.getOrDefault(kind, 0L);
    }

    /** Divergent keys, listed or not. */
    public long divergent() {
      return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Whether some divergent keys are counted but not listed. */
    public boolean truncated() {
      return divergent() > divergences.size();
    }

    private static Map<Kind, Long> countsOf(List<Divergence> divergences) {
      Map<Kind, Long> out = new EnumMap<>(Kind.class);
      for (Divergence d : divergences) {
        out.merge(d.kind(), 1L, Long::sum);
      }
      return out;
    }
  }

  /** A streamed audit's report and the etcd revision it read. */
  public record Streamed(Report report, long revision) {}

  /**
   * Compares etcd with the fold of {@code spill}, bucket by bucket in key order, against a
   * merge-walk of the shard prefix (and the table prefix when {@code tables}) read in pages at one
   * revision: in memory one bucket and one page of each prefix, and the first {@code listed}
   * divergent keys.
   */
  public static Streamed stream(
      Spill spill,
      KV kv,
      EtcdLayout layout,
      boolean tables,
      int maxRequestBytes,
      long timeoutMs,
      int listed)
      throws Exception {
    AuditWalk walk = new AuditWalk(kv, layout, tables, maxRequestBytes, timeoutMs, listed);
    spill.forEachBucket(walk::bucket);
    return new Streamed(walk.finish(), walk.revision());
  }

  private Audit() {}

  /** What etcd must hold under {@code layout} for {@code fold}, by full key. */
  public static SortedMap<String, byte[]> expected(
      Fold fold, EtcdLayout layout, boolean tables, int maxRequestBytes) {
    SortedMap<String, byte[]> out = new TreeMap<>();
    for (var t : fold.targets().entrySet()) {
      for (ShardRecord r : t.getValue().values()) {
        out.put(layout.shardKey(Keys.shardKey(t.getKey(), r.shard())), JsonCodec.encodeRecord(r));
      }
      if (tables) {
        String key = layout.tableKey(Keys.hex(t.getKey()));
        byte[] value =
            EtcdMirror.tableValue(key, TableRecord.of(t.getValue().values()), maxRequestBytes);
        if (value != null) {
          out.put(key, value);
        }
      }
    }
    return out;
  }

  /**
   * Compares {@code expected} with the snapshot's keys under the shard prefix (and the table prefix
   * when {@code tables}).
   */
  public static Report compare(
      SortedMap<String, byte[]> expected,
      EtcdSnapshot snapshot,
      EtcdLayout layout,
      boolean tables) {
    List<Divergence> out = new ArrayList<>();
    SortedMap<String, byte[]> actual = new TreeMap<>();
    for (Map.Entry<String, byte[]> e : snapshot.values().entrySet()) {
      if (e.getKey().startsWith(layout.shardRecordsPrefix())
          || (tables && e.getKey().startsWith(layout.tableRecordsPrefix()))) {
        actual.put(e.getKey(), e.getValue());
      }
    }
    for (Map.Entry<String, byte[]> e : expected.entrySet()) {
      byte[] a = actual.get(e.getKey());
      if (a == null) {
        out.add(new Divergence(e.getKey(), Kind.MISSING, text(e.getValue()), null));
      } else if (!Arrays.equals(a, e.getValue())) {
        out.add(new Divergence(e.getKey(), Kind.DIFFERENT, text(e.getValue()), text(a)));
      }
    }
    for (Map.Entry<String, byte[]> e : actual.entrySet()) {
      if (!expected.containsKey(e.getKey())) {
        out.add(new Divergence(e.getKey(), Kind.EXTRA, null, text(e.getValue())));
      }
    }
    out.sort((a, b) -> a.key().compareTo(b.key()));
    TreeMap<String, Boolean> union = new TreeMap<>();
    expected.keySet().forEach(k -> union.put(k, true));
    actual.keySet().forEach(k -> union.put(k, true));
    return new Report(union.size(), out);
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
