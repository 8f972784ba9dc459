package io.demandfold.connect;

import io.demandfold.core.EnumNames;
import io.demandfold.mirror.EtcdLayout;
import java.util.HashMap;
import java.util.Map;

/**
 * The source's position in etcd, stored by Connect as the offset of its one partition {@code
 * {"etcd.prefix": <prefix>}}:
 *
 * <ul>
 *   <li>{@code {"phase":"watch","revision":R}}: every change up to revision R has been delivered;
 *       resume with a watch from R + 1;
 *   <li>{@code {"phase":"snapshot","revision":R,"key":K}}: a snapshot at revision R has delivered
 *       the keys up to K; resume it after K.
 * </ul>
 *
 * Both carry {@code cluster_id}, the hex id of the etcd cluster the revision belongs to: revisions
 * of another cluster (a restore, a new cluster) mean nothing, so a mismatch starts a fresh
 * snapshot.
 *
 * @param key the last etcd key delivered by a snapshot, {@code null} in the watch phase
 * @param clusterId hex cluster id, {@code null} when unknown
 */
record SourceOffset(Phase phase, long revision, String key, String clusterId) {
  static final String PARTITION_KEY = "etcd.prefix";

  /** Where the source is. */
  enum Phase {
    SNAPSHOT,
    WATCH;

    private final String wire = EnumNames.of(this);

    String wire() {
      return wire;
    }
  }

  SourceOffset {
    if (revision < 0) {
      throw new IllegalArgumentException("revision is " + revision + "; must be >= 0");
    }
    if ((phase == Phase.SNAPSHOT) != (key != null)) {
      throw new IllegalArgumentException("a snapshot offset, and only one, names a key");
    }
  }

  static SourceOffset watch(long revision, String clusterId) {
    return new SourceOffset(Phase.WATCH, revision, null, clusterId);
  }

  static SourceOffset snapshot(long revision, String key, String clusterId) {
    return new SourceOffset(Phase.SNAPSHOT, revision, key, clusterId);
  }

  /** The source partition of {@code layout}'s prefix. */
  static Map<String, String> partition(EtcdLayout layout) {
    return Map.of(PARTITION_KEY, layout.prefix());
  }

  Map<String, Object> toMap() {
    Map<String, Object> m = new HashMap<>();
    m.put("phase", phase.wire());
    m.put("revision", revision);
    if (key != null) {
      m.put("key", key);
    }
    if (clusterId != null) {
      m.put("cluster_id", clusterId);
    }
    return m;
  }

  /**
   * Reads a stored offset.
   *
   * @throws IllegalArgumentException saying what is wrong with it
   */
  static SourceOffset parse(Map<String, ?> m) {
    Object phase = m.get("phase");
    Object revision = m.get("revision");
    Object key = m.get("key");
    Object cluster = m.get("cluster_id");
    if (!(revision instanceof Number)) {
      throw new IllegalArgumentException("'revision' is " + revision + ", not a number");
    }
    if (key != null && !(key instanceof String)) {
      throw new IllegalArgumentException("'key' is " + key + ", not a string");
    }
    if (cluster != null && !(cluster instanceof String)) {
      throw new IllegalArgumentException("'cluster_id' is " + cluster + ", not a string");
    }
    long rev = ((Number) revision).longValue();
    Phase p = EnumNames.parse(Phase.class, phase);
    if (p == null) {
      throw new IllegalArgumentException("'phase' is " + phase + ", not 'snapshot' or 'watch'");
    }
    return new SourceOffset(p, rev, (String) key, (String) cluster);
  }

  @Override
  public String toString() {
    return phase.wire() + "@" + revision + (key == null ? "" : " after " + key);
  }
}
