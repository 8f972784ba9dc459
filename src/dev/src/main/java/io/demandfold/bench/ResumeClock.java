package io.demandfold.bench;

import io.demandfold.core.Join;
import io.demandfold.core.ShardRecord;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The resume figures of (f), from the etcd writes that follow a SIGKILL. Times are taken from the
 * kill ({@code killNanos}, just before the signal). A write counts only when etcd made it after the
 * killed process was gone: its mod revision is above {@code revision}, the revision of the read of
 * the shard prefix done once the process had exited. The shards are split by the partition of their
 * key: those of the killed instance's partitions and the others.
 *
 * <ul>
 *   <li><b>first write</b>: the first such write of a shard of a killed partition.
 *   <li><b>caught up</b> (of the killed partitions, and of the others): the first moment at which
 *       etcd holds every event sent before the kill to every shard of those partitions, i.e. each
 *       shard whose etcd value at {@code revision} lacked some of them (joining the offline fold of
 *       the events sent before the kill into it changed it) has been written with a value that
 *       contains them. Shards etcd already held in full at the kill do not wait; when none lacked
 *       anything the figure is 0.
 * </ul>
 */
final class ResumeClock {
  private final long killNanos;
  private final long revision;
  private final Predicate<String> killed;
  private final Map<String, ShardRecord> pendingKilled = new HashMap<>();
  private final Map<String, ShardRecord> pendingOthers = new HashMap<>();
  private final int pendingKilledAtKill;
  private final int pendingOthersAtKill;
  private long firstNanos = -1;
  private long killedCaughtUpNanos = -1;
  private long othersCaughtUpNanos = -1;

  /**
   * @param killNanos {@link System#nanoTime()} just before the SIGKILL
   * @param revision etcd's revision once the killed process was gone
   * @param killed whether a shard key ({@code <hex>/<shard>}) is on a partition of the killed
   *     instance
   * @param sentBeforeKill the offline fold of every event sent before the kill, by shard key
   * @param etcdAtRevision the records etcd held at {@code revision}, by shard key
   */
  ResumeClock(
      long killNanos,
      long revision,
      Predicate<String> killed,
      Map<String, ShardRecord> sentBeforeKill,
      Map<String, ShardRecord> etcdAtRevision) {
    this.killNanos = killNanos;
    this.revision = revision;
    this.killed = killed;
    for (Map.Entry<String, ShardRecord> e : sentBeforeKill.entrySet()) {
      ShardRecord held = etcdAtRevision.get(e.getKey());
      if (!contains(held, e.getValue())) {
        (killed.test(e.getKey()) ? pendingKilled : pendingOthers).put(e.getKey(), e.getValue());
      }
    }
    pendingKilledAtKill = pendingKilled.size();
    pendingOthersAtKill = pendingOthers.size();
    if (pendingKilled.isEmpty()) {
      killedCaughtUpNanos = killNanos;
    }
    if (pendingOthers.isEmpty()) {
      othersCaughtUpNanos = killNanos;
    }
  }

  private static boolean contains(ShardRecord held, ShardRecord sent) {
    return held != null && Join.join(held, sent) == held;
  }

  /**
   * An etcd write seen by the watch at {@code nanos}.
   *
   * @param key the shard key ({@code <hex>/<shard>}, the etcd key without the shard prefix)
   * @param modRevision the write's revision
   * @param value the record written
   */
  void onPut(String key, long modRevision, ShardRecord value, long nanos) {
    if (modRevision <= revision) {
      return;
    }
    boolean ofKilled = killed.test(key);
    if (ofKilled && firstNanos < 0) {
      firstNanos = nanos;
    }
    Map<String, ShardRecord> pending = ofKilled ? pendingKilled : pendingOthers;
    ShardRecord sent = pending.get(key);
    if (sent != null && contains(value, sent)) {
      pending.remove(key);
      if (pending.isEmpty()) {
        if (ofKilled) {
          killedCaughtUpNanos = nanos;
        } else {
          othersCaughtUpNanos = nanos;
        }
      }
    }
  }

  /** Milliseconds from the kill to the first write of a shard of a killed partition; NaN: none. */
  double firstWriteMs() {
    return ms(firstNanos);
  }

  /** Milliseconds from the kill until the killed partitions' shards caught up; NaN: not yet. */
  double killedCaughtUpMs() {
    return ms(killedCaughtUpNanos);
  }

  /** Milliseconds from the kill until the other partitions' shards caught up; NaN: not yet. */
  double othersCaughtUpMs() {
    return ms(othersCaughtUpNanos);
  }

  /** Whether every figure is known. */
  boolean complete() {
    return firstNanos >= 0 && killedCaughtUpNanos >= 0 && othersCaughtUpNanos >= 0;
  }

  /** Shards of the killed partitions that etcd lacked events of at the kill. */
  int pendingKilledAtKill() {
    return pendingKilledAtKill;
  }

  /** Shards of the other partitions that etcd lacked events of at the kill. */
  int pendingOthersAtKill() {
    return pendingOthersAtKill;
  }

  /** Shards of the killed partitions still lacking events sent before the kill. */
  int pendingKilled() {
    return pendingKilled.size();
  }

  private double ms(long nanos) {
    return nanos < 0 ? Double.NaN : (nanos - killNanos) / 1e6;
  }
}
