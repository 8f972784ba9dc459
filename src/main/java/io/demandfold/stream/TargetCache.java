package io.demandfold.stream;

import io.demandfold.core.ShardRecord;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The decoded shard records of recently touched targets of one task, so that computing a target's
 * view or table record does not decode every shard from the store again. Bounded by a number of
 * shards; the least recently used targets are dropped first (they are read from the store again
 * when touched). Only the stream thread uses it.
 */
final class TargetCache {
  private final int budget;
  private final LinkedHashMap<String, Map<String, ShardRecord>> targets =
      new LinkedHashMap<>(16, 0.75f, true);
  private int shards;

  /**
   * @param budget most shard records held; 0 caches nothing
   */
  TargetCache(int budget) {
    this.budget = budget;
  }

  /** The shard records of {@code hex}, loaded with {@code load} when not cached. */
  Map<String, ShardRecord> get(String hex, Function<String, Map<String, ShardRecord>> load) {
    Map<String, ShardRecord> cached = targets.get(hex);
    if (cached != null) {
      return cached;
    }
    Map<String, ShardRecord> loaded = new HashMap<>(load.apply(hex));
    if (budget > 0) {
      targets.put(hex, loaded);
      shards += loaded.size();
      evict(hex);
    }
    return loaded;
  }

  /** The cached record of a shard; {@code null} when its target is not cached or it is new. */
  ShardRecord peek(String hex, String shard) {
    Map<String, ShardRecord> cached = targets.get(hex);
    return cached == null ? null : cached.get(shard);
  }

  boolean holds(String hex) {
    return targets.containsKey(hex);
  }

  /** Records a changed shard of a cached target; does nothing for a target not cached. */
  void update(String hex, ShardRecord record) {
    Map<String, ShardRecord> cached = targets.get(hex);
    if (cached != null && cached.put(record.shard(), record) == null) {
      shards++;
      evict(hex);
    }
  }

  private void evict(String keep) {
    Iterator<Map.Entry<String, Map<String, ShardRecord>>> it = targets.entrySet().iterator();
    while (shards > budget && it.hasNext()) {
      Map.Entry<String, Map<String, ShardRecord>> e = it.next();
      if (!e.getKey().equals(keep)) {
        shards -= e.getValue().size();
        it.remove();
      }
    }
  }
}
