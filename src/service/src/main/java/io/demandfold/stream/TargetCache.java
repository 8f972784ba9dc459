package io.demandfold.stream;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The table entries of recently touched targets of one task, by shard, so that computing a target's
 * view or table record does not read every shard from the store again. Bounded by a number of
 * shards; the least recently used targets are dropped first (they are read from the store again
 * when touched), each one told to {@code evicted} (counted in {@code
 * demandfold_table_cache_evictions_total}). Only the stream thread uses it.
 *
 * @param <V> the per-shard value
 */
final class TargetCache<V> {
  private final int budget;
  private final Runnable evicted;
  private final LinkedHashMap<String, Map<String, V>> targets =
      new LinkedHashMap<>(16, 0.75f, true);
  private int shards;

  /**
   * @param budget most shard values held; 0 caches nothing
   * @param evicted run once for each target dropped to stay within the budget
   */
  TargetCache(int budget, Runnable evicted) {
    this.budget = budget;
    this.evicted = evicted;
  }

  /** The values of {@code hex}'s shards, loaded with {@code load} when not cached. */
  Map<String, V> get(String hex, Function<String, Map<String, V>> load) {
    Map<String, V> cached = targets.get(hex);
    if (cached != null) {
      return cached;
    }
    Map<String, V> loaded = new HashMap<>(load.apply(hex));
    if (budget > 0 && loaded.size() <= budget) {
      targets.put(hex, loaded);
      shards += loaded.size();
      evict(hex);
    }
    return loaded;
  }

  /** The cached value of a shard; {@code null} when its target is not cached or it is new. */
  V peek(String hex, String shard) {
    Map<String, V> cached = targets.get(hex);
    return cached == null ? null : cached.get(shard);
  }

  boolean holds(String hex) {
    return targets.containsKey(hex);
  }

  /** The number of shards cached of {@code hex}, or -1 when it is not cached. */
  int size(String hex) {
    Map<String, V> cached = targets.get(hex);
    return cached == null ? -1 : cached.size();
  }

  /** Records a changed shard of a cached target; does nothing for a target not cached. */
  void update(String hex, String shard, V value) {
    Map<String, V> cached = targets.get(hex);
    if (cached != null && cached.put(shard, value) == null) {
      shards++;
      evict(hex);
    }
  }

  private void evict(String keep) {
    Iterator<Map.Entry<String, Map<String, V>>> it = targets.entrySet().iterator();
    while (shards > budget && it.hasNext()) {
      Map.Entry<String, Map<String, V>> e = it.next();
      if (!e.getKey().equals(keep)) {
        shards -= e.getValue().size();
        it.remove();
        evicted.run();
      }
    }
  }
}
