package io.demandfold.connect;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Join;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The records of one {@code put()} folded per key with the core's {@link Join}, so that a batch
 * writes each etcd key at most once, whatever the number of its events. Not thread-safe.
 */
final class SinkBatch {
  /** A folded shard record and the target it belongs to. */
  record Shard(String target, ShardRecord record) {}

  private final Map<String, Shard> shards = new LinkedHashMap<>();

  /** Joins {@code event} into the record of its key. */
  void add(DemandEvent event) {
    String key = event.key();
    Shard before = shards.get(key);
    ShardRecord joined = Join.join(before == null ? null : before.record(), event.record());
    if (before == null || joined != before.record()) {
      shards.put(key, new Shard(event.target(), joined));
    }
  }

  /** Folded records by key {@code <hex>/<shard>}, in the order keys first appeared. */
  Map<String, Shard> shards() {
    return Collections.unmodifiableMap(shards);
  }

  boolean isEmpty() {
    return shards.isEmpty();
  }

  /**
   * The table record of each target in the batch, by {@code <hex>}, built from the record of each
   * of its keys that {@code current} returns (the batch's own when it returns {@code null}). Joined
   * into what etcd holds, these make the same table record as the pipeline's table mirror: every
   * part of a table record joins shard by shard.
   */
  Map<String, TableRecord> tables(Function<String, ShardRecord> current) {
    Map<String, List<ShardRecord>> byTarget = new LinkedHashMap<>();
    for (Map.Entry<String, Shard> e : shards.entrySet()) {
      ShardRecord r = current.apply(e.getKey());
      byTarget
          .computeIfAbsent(e.getValue().target(), t -> new ArrayList<>())
          .add(r == null ? e.getValue().record() : r);
    }
    Map<String, TableRecord> out = new LinkedHashMap<>();
    byTarget.forEach((target, records) -> out.put(Keys.hex(target), TableRecord.of(records)));
    return out;
  }
}
