package io.demandfold.mirror;

import io.demandfold.core.DerivedTable;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;

/**
 * About how many bytes of heap a decoded record holds: what the mirror's caches and buffers count
 * against their bounds. Estimates, generous rather than exact.
 */
public final class HeapBytes {
  private HeapBytes() {}

  /** A shard record: the object, its shard id and its flush times. */
  public static long of(ShardRecord r) {
    return 160 + 2L * r.shard().length() + 16L * r.sealedTimes().size();
  }

  /** A table record: the object and an entry per shard. */
  public static long of(TableRecord t) {
    return 128 + 160L * t.shards().size();
  }

  /**
   * A shard record, a table record or a derived table (the derived fields and progress of a large
   * table).
   */
  public static long of(Object record) {
    if (record instanceof ShardRecord r) {
      return of(r);
    }
    if (record instanceof TableRecord t) {
      return of(t);
    }
    return record instanceof DerivedTable ? 768 : 64;
  }
}
