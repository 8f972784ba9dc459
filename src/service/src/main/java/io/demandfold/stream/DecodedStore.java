package io.demandfold.stream;

import io.demandfold.core.Keys;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
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
 * A changelogged key-value store that keeps values decoded in memory and writes a changed key to
 * its inner store (and so to the changelog) once it has been left alone for a while, or at the
 * commit, each change once.
 *
 * <p>A hot shard changes many times between two commits; Kafka Streams' own record cache would
 * serialize every change and deserialize every read. Here a put stays a decoded object, a read of a
 * recent key is a map lookup, and the inner store (metered, changelogged, in memory or RocksDB)
 * sees a key when it has not changed for {@code writeAfterMs} (a few puts later, so that the commit
 * has little left to write and does not stall a live stream) or at the commit, whichever comes
 * first.
 *
 * <p>Kafka Streams writes caches to their stores before it commits a task: it calls {@link
 * #flushCache} on every registered store that is a {@link CachedStateStore}, in the task's
 * prepare-commit, before the producer's transaction commits with the consumed offsets. So what a
 * commit covers is in the changelog of the same transaction, as with Kafka's own caching stores.
 * {@code CachedStateStore} lives in Kafka Streams' internals package (4.3.1, pinned): it is the
 * only hook a store gets before the commit. {@code DecodedStoreTest} and the fault tests hold this.
 *
 * <p>The stream thread reads and writes; interactive queries read from other threads: they see
 * every write (uncommitted ones from memory, the rest from the inner store) and never fill the
 * cache. At most {@code capacity} clean decoded values stay cached; changed ones always do.
 *
 * <p>Why one class of this size: it implements Kafka Streams' {@code KeyValueStore} (about twenty
 * methods), each delegating to the inner store or overlaying the decoded entries; split, one
 * cache's invariants would be spread over several classes.
 */
final class DecodedStore<V> implements KeyValueStore<String, V>, CachedStateStore<String, V> {
  private static final Object DELETED = new Object();

  /** Changed keys looked at per put, to write those left alone long enough. */
  private static final int WRITES_PER_PUT = 4;

  private final KeyValueStore<String, V> inner;
  private final int capacity;
  private final long writeAfterMs;
  private final Map<String, Entry> values = new ConcurrentHashMap<>();

  /**
   * Keys whose change the inner store lacks. In a store the stream thread scans, they are kept in
   * key order, so that a range or prefix scan lays only its own over the inner store's (a target's
   * scan among a million changed shards reads its few, not all); elsewhere a hash set, cheaper to
   * change, which a scan filters whole.
   */
  private final Set<String> dirty;

  /**
   * {@code dirty.size()}, which a skip list counts by walking; only the stream thread writes it.
   */
  private volatile int dirtyCount;

  private final ArrayDeque<Entry> changed = new ArrayDeque<>();
  private volatile Thread writer;

  /** A key's decoded value (or {@link #DELETED}), and whether the inner store lacks it. */
  private static final class Entry {
    final String key;
    volatile Object value;
    volatile boolean dirty;
    long changedMs;

    Entry(String key, Object value) {
      this.key = key;
      this.value = value;
    }
  }

  /**
   * @param inner the changelogged store (no caching layer of its own)
   * @param capacity most clean decoded values kept in memory; 0 keeps only uncommitted ones
   * @param writeAfterMs a changed key left alone this long is written before the commit; {@code
   *     Long.MAX_VALUE}: only at the commit
   * @param scanned whether the stream thread scans this store by range or prefix (its changed keys
   *     are then kept in key order)
   */
  DecodedStore(KeyValueStore<String, V> inner, int capacity, long writeAfterMs, boolean scanned) {
    this.inner = inner;
    this.capacity = capacity;
    this.writeAfterMs = writeAfterMs;
    this.dirty =
        scanned ? new ConcurrentSkipListSet<>(Keys.UTF8_ORDER) : ConcurrentHashMap.newKeySet();
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
    Entry e = values.get(key);
    if (e != null) {
      Object v = e.value;
      return v == DELETED ? null : (V) v;
    }
    V loaded = inner.get(key);
    // only the writing thread caches: a query thread could put back a value a delete just removed
    if (loaded != null && capacity > 0 && Thread.currentThread() == writer) {
      values.put(key, new Entry(key, loaded));
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
    change(key, value);
  }

  private void change(String key, Object value) {
    writer = Thread.currentThread();
    long now = System.currentTimeMillis();
    Entry e = values.get(key);
    if (e == null) {
      e = new Entry(key, value);
      values.put(key, e);
    } else {
      e.value = value;
    }
    e.changedMs = now;
    if (!e.dirty) {
      e.dirty = true;
      markDirty(key);
      changed.addLast(e);
    }
    writeSettled(now);
  }

  /** Writes the changed keys at the head of the queue that were left alone long enough. */
  private void writeSettled(long now) {
    for (int i = 0; i < WRITES_PER_PUT && !changed.isEmpty(); i++) {
      Entry e = changed.peekFirst();
      if (!e.dirty) {
        changed.pollFirst();
      } else if (now - e.changedMs >= writeAfterMs) {
        changed.pollFirst();
        write(e);
      } else {
        changed.pollFirst();
        changed.addLast(e);
        return;
      }
    }
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
      Entry e = values.remove(key);
      if (e != null) {
        e.dirty = false;
      }
      unmarkDirty(key);
    } else {
      change(key, DELETED);
    }
    return old;
  }

  /** Writes every key changed since the last commit to the inner store, each once. */
  @Override
  public void flushCache() {
    if (dirty.isEmpty()) {
      changed.clear();
      return;
    }
    for (String key : new ArrayList<>(dirty)) {
      Entry e = values.get(key);
      if (e != null && e.dirty) {
        write(e);
      }
      unmarkDirty(key);
    }
    changed.clear();
    evict();
  }

  @SuppressWarnings("unchecked")
  private void write(Entry e) {
    Object v = e.value;
    if (v == DELETED) {
      inner.delete(e.key);
      values.remove(e.key, e);
    } else {
      inner.put(e.key, (V) v);
    }
    e.dirty = false;
    unmarkDirty(e.key);
  }

  private void markDirty(String key) {
    if (dirty.add(key)) {
      dirtyCount++;
    }
  }

  private void unmarkDirty(String key) {
    if (dirty.remove(key)) {
      dirtyCount--;
    }
  }

  @Override
  public void clearCache() {
    values.clear();
    dirty.clear();
    dirtyCount = 0;
    changed.clear();
  }

  @Override
  public boolean setFlushListener(CacheFlushListener<String, V> listener, boolean sendOldValues) {
    return false;
  }

  /** Drops clean values beyond the capacity, a tenth more at a time. */
  private void evict() {
    int excess = values.size() - dirtyCount - capacity;
    if (excess <= 0) {
      return;
    }
    int drop = excess + capacity / 10;
    for (Iterator<Entry> it = values.values().iterator(); drop > 0 && it.hasNext(); ) {
      Entry e = it.next();
      if (!e.dirty) {
        it.remove();
        drop--;
      }
    }
  }

  @Override
  public KeyValueIterator<String, V> range(String from, String to) {
    return merged(
        inner.range(from, to),
        from,
        k ->
            (from == null || Keys.UTF8_ORDER.compare(k, from) >= 0)
                && (to == null || Keys.UTF8_ORDER.compare(k, to) <= 0));
  }

  @Override
  public KeyValueIterator<String, V> all() {
    return merged(inner.all(), null, k -> true);
  }

  @Override
  public <PS extends Serializer<P>, P> KeyValueIterator<String, V> prefixScan(
      P prefix, PS prefixKeySerializer) {
    String p = String.valueOf(prefix);
    // in code point order the keys that start with p follow p, one after the other
    return merged(inner.prefixScan(prefix, prefixKeySerializer), p, k -> k.startsWith(p));
  }

  /**
   * The inner store's entries with the uncommitted changes {@code in} the scan laid over them, in
   * key order, read as they come (a target of a million shards is never held whole). A scan's keys
   * follow one another in key order from {@code from} ({@code null}: from the first key): kept in
   * that order, the changed keys are read from {@code from} to the first that is not in it; kept in
   * a hash set, all are tested.
   */
  private KeyValueIterator<String, V> merged(
      KeyValueIterator<String, V> committed, String from, Predicate<String> in) {
    TreeMap<String, Object> overlay = new TreeMap<>(Keys.UTF8_ORDER);
    boolean ordered = from != null && dirty instanceof NavigableSet;
    Iterable<String> keys = ordered ? ((NavigableSet<String>) dirty).tailSet(from, true) : dirty;
    for (String key : keys) {
      if (!in.test(key)) {
        if (ordered) {
          break;
        }
        continue;
      }
      Entry e = values.get(key);
      Object v = e == null ? null : e.value;
      if (v != null) {
        overlay.put(key, v);
      }
    }
    return new Overlaid<>(committed, overlay);
  }

  @Override
  public long approximateNumEntries() {
    return inner.approximateNumEntries() + dirtyCount;
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

  /** The committed entries in key order, with uncommitted changes laid over them. */
  private static final class Overlaid<V> implements KeyValueIterator<String, V> {
    private final KeyValueIterator<String, V> committed;
    private final Iterator<Map.Entry<String, Object>> overlay;
    private KeyValue<String, V> nextCommitted;
    private Map.Entry<String, Object> nextOverlay;
    private KeyValue<String, V> next;

    Overlaid(KeyValueIterator<String, V> committed, TreeMap<String, Object> overlay) {
      this.committed = committed;
      this.overlay = overlay.entrySet().iterator();
      this.nextCommitted = committed.hasNext() ? committed.next() : null;
      this.nextOverlay = this.overlay.hasNext() ? this.overlay.next() : null;
      advance();
    }

    @SuppressWarnings("unchecked")
    private void advance() {
      next = null;
      while (next == null && (nextCommitted != null || nextOverlay != null)) {
        int c =
            nextCommitted == null
                ? 1
                : nextOverlay == null
                    ? -1
                    : Keys.UTF8_ORDER.compare(nextCommitted.key, nextOverlay.getKey());
        if (c < 0) {
          next = nextCommitted;
          nextCommitted = committed.hasNext() ? committed.next() : null;
        } else {
          if (c == 0) {
            nextCommitted = committed.hasNext() ? committed.next() : null;
          }
          Object v = nextOverlay.getValue();
          if (v != DELETED) {
            next = KeyValue.pair(nextOverlay.getKey(), (V) v);
          }
          nextOverlay = overlay.hasNext() ? overlay.next() : null;
        }
      }
    }

    @Override
    public boolean hasNext() {
      return next != null;
    }

    @Override
    public KeyValue<String, V> next() {
      if (next == null) {
        throw new NoSuchElementException();
      }
      KeyValue<String, V> out = next;
      advance();
      return out;
    }

    @Override
    public String peekNextKey() {
      if (next == null) {
        throw new NoSuchElementException();
      }
      return next.key;
    }

    @Override
    public void close() {
      committed.close();
    }
  }
}
