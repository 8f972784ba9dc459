package io.demandfold.stream;

import io.demandfold.core.Keys;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.CacheFlushListener;
import org.apache.kafka.streams.state.internals.CachedStateStore;

/**
 * A changelogged key-value store that keeps values decoded in memory and writes the keys changed
 * since the last commit to its inner store (and so to the changelog) once per commit, each once.
 *
 * <p>A hot shard changes many times between two commits; Kafka Streams' own record cache would
 * serialize every change and deserialize every read. Here a put stays a decoded object, a read of a
 * recent key is a map lookup, and the inner store (metered, changelogged, in memory or RocksDB)
 * sees one put per changed key per commit.
 *
 * <p>Kafka Streams writes caches to their stores before it commits a task: it calls {@link
 * #flushCache} on every registered store that is a {@link CachedStateStore}, in the task's
 * prepare-commit, before the producer's transaction commits with the consumed offsets. So what a
 * commit covers is in the changelog of the same transaction, as with Kafka's own caching stores.
 * {@code CachedStateStore} lives in Kafka Streams' internals package (4.3.1, pinned): it is the
 * only hook a store gets before the commit. {@code DecodedStoreTest} and the fault tests hold this.
 *
 * <p>The stream thread reads and writes; interactive queries read from other threads: they see
 * every write (pending ones from memory, the rest from the inner store) and never fill the cache.
 * At most {@code capacity} clean values stay cached; keys changed since the last commit always do.
 */
final class DecodedStore<V> implements KeyValueStore<String, V>, CachedStateStore<String, V> {
  private static final Object DELETED = new Object();

  private final KeyValueStore<String, V> inner;
  private final int capacity;
  private final Map<String, Object> values = new ConcurrentHashMap<>();
  private final Set<String> dirty = ConcurrentHashMap.newKeySet();
  private volatile Thread writer;

  /**
   * @param inner the changelogged store (no caching layer of its own)
   * @param capacity most clean decoded values kept in memory; 0 keeps only uncommitted ones
   */
  DecodedStore(KeyValueStore<String, V> inner, int capacity) {
    this.inner = inner;
    this.capacity = capacity;
  }

  @Override
  public String name() {
    return inner.name();
  }

  @Override
  public void init(StateStoreContext context, StateStore root) {
    inner.init(context, root);
  }

  @Override
  @SuppressWarnings("unchecked")
  public V get(String key) {
    Object v = values.get(key);
    if (v != null) {
      return v == DELETED ? null : (V) v;
    }
    V loaded = inner.get(key);
    // only the writing thread caches: a query thread could put back a value a delete just removed
    if (loaded != null && capacity > 0 && Thread.currentThread() == writer) {
      values.put(key, loaded);
      evict();
    }
    return loaded;
  }

  @Override
  public void put(String key, V value) {
    if (value == null) {
      delete(key);
      return;
    }
    writer = Thread.currentThread();
    values.put(key, value);
    dirty.add(key);
  }

  @Override
  public V putIfAbsent(String key, V value) {
    V current = get(key);
    if (current == null) {
      put(key, value);
    }
    return current;
  }

  @Override
  public void putAll(List<KeyValue<String, V>> entries) {
    for (KeyValue<String, V> e : entries) {
      put(e.key, e.value);
    }
  }

  /** Deletes {@code key}; a key the inner store never held leaves nothing to write. */
  @Override
  public V delete(String key) {
    writer = Thread.currentThread();
    V old = get(key);
    if (inner.get(key) == null) {
      dirty.remove(key);
      values.remove(key);
    } else {
      values.put(key, DELETED);
      dirty.add(key);
    }
    return old;
  }

  /** Writes every key changed since the last commit to the inner store, each once. */
  @Override
  @SuppressWarnings("unchecked")
  public void flushCache() {
    if (dirty.isEmpty()) {
      return;
    }
    List<String> keys = new ArrayList<>(dirty);
    for (String key : keys) {
      Object v = values.get(key);
      if (v == DELETED) {
        inner.delete(key);
        values.remove(key, DELETED);
      } else if (v != null) {
        inner.put(key, (V) v);
      }
      dirty.remove(key);
    }
    evict();
  }

  @Override
  public void clearCache() {
    values.clear();
    dirty.clear();
  }

  @Override
  public boolean setFlushListener(CacheFlushListener<String, V> listener, boolean sendOldValues) {
    return false;
  }

  /** Keys changed since the last commit. */
  int uncommitted() {
    return dirty.size();
  }

  /** Drops clean values beyond the capacity, a tenth more at a time. */
  private void evict() {
    int excess = values.size() - dirty.size() - capacity;
    if (excess <= 0) {
      return;
    }
    int drop = excess + capacity / 10;
    for (Iterator<String> it = values.keySet().iterator(); drop > 0 && it.hasNext(); ) {
      String key = it.next();
      if (!dirty.contains(key)) {
        it.remove();
        drop--;
      }
    }
  }

  @Override
  public KeyValueIterator<String, V> range(String from, String to) {
    return merged(
        inner.range(from, to),
        k ->
            (from == null || Keys.UTF8_ORDER.compare(k, from) >= 0)
                && (to == null || Keys.UTF8_ORDER.compare(k, to) <= 0));
  }

  @Override
  public KeyValueIterator<String, V> all() {
    return merged(inner.all(), k -> true);
  }

  @Override
  public <PS extends Serializer<P>, P> KeyValueIterator<String, V> prefixScan(
      P prefix, PS prefixKeySerializer) {
    String p = String.valueOf(prefix);
    return merged(inner.prefixScan(prefix, prefixKeySerializer), k -> k.startsWith(p));
  }

  /** The inner store's entries with the uncommitted changes among {@code in} laid over them. */
  @SuppressWarnings("unchecked")
  private KeyValueIterator<String, V> merged(
      KeyValueIterator<String, V> committed, Predicate<String> in) {
    TreeMap<String, V> out = new TreeMap<>(Keys.UTF8_ORDER);
    try (committed) {
      committed.forEachRemaining(kv -> out.put(kv.key, kv.value));
    }
    for (String key : dirty) {
      Object v = values.get(key);
      if (v != null && in.test(key)) {
        if (v == DELETED) {
          out.remove(key);
        } else {
          out.put(key, (V) v);
        }
      }
    }
    return new ListIterator<>(new ArrayList<>(out.entrySet()));
  }

  @Override
  public long approximateNumEntries() {
    return inner.approximateNumEntries() + dirty.size();
  }

  @Override
  public void close() {
    clearCache();
    inner.close();
  }

  @Override
  public boolean persistent() {
    return inner.persistent();
  }

  @Override
  public boolean isOpen() {
    return inner.isOpen();
  }

  @Override
  public org.apache.kafka.streams.query.Position getPosition() {
    return inner.getPosition();
  }

  /** An iterator over materialised entries. */
  private static final class ListIterator<V> implements KeyValueIterator<String, V> {
    private final List<Map.Entry<String, V>> entries;
    private int next;

    ListIterator(List<Map.Entry<String, V>> entries) {
      this.entries = entries;
    }

    @Override
    public boolean hasNext() {
      return next < entries.size();
    }

    @Override
    public KeyValue<String, V> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      Map.Entry<String, V> e = entries.get(next++);
      return KeyValue.pair(e.getKey(), e.getValue());
    }

    @Override
    public String peekNextKey() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      return entries.get(next).getKey();
    }

    @Override
    public void close() {}
  }
}
