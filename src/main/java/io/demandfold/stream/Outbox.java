package io.demandfold.stream;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The dirty keys of one task: keys whose folded record changed and is not yet emitted downstream or
 * mirrored into etcd. Persisted in a changelogged store (key to the wall-clock time it became
 * dirty) written in the same transaction as the fold, so nothing is lost across restarts or
 * rebalances; indexed in memory for the stream thread. Bounded by the number of keys, not events.
 *
 * <p>After a restore every dirty key is emitted again: a repeated record on a compacted topic is
 * harmless, a lost one is not.
 */
final class Outbox {
  private final KeyValueStore<String, Long> store;
  private final boolean mirrored;
  private final LinkedHashMap<String, Dirty> dirty = new LinkedHashMap<>();
  private final LinkedHashSet<String> toEmit = new LinkedHashSet<>();

  /**
   * One dirty key: since when, how often it changed since, whether a mirror call is out, whether
   * etcd already holds its latest change.
   */
  static final class Dirty {
    final long sinceMs;
    int changes;
    boolean inFlight;
    boolean mirrored;

    Dirty(long sinceMs) {
      this.sinceMs = sinceMs;
    }
  }

  /**
   * @param store the changelogged outbox store
   * @param mirrored whether keys wait for etcd after being emitted; if not, emitting settles them
   */
  Outbox(KeyValueStore<String, Long> store, boolean mirrored) {
    this.store = store;
    this.mirrored = mirrored;
    try (KeyValueIterator<String, Long> it = store.all()) {
      while (it.hasNext()) {
        KeyValue<String, Long> kv = it.next();
        dirty.put(kv.key, new Dirty(kv.value));
        toEmit.add(kv.key);
      }
    }
  }

  /** Marks {@code key} changed at wall-clock {@code nowMs}. */
  void mark(String key, long nowMs) {
    Dirty d = dirty.get(key);
    if (d == null) {
      dirty.put(key, new Dirty(nowMs));
      store.put(key, nowMs);
    } else {
      d.changes++;
      d.mirrored = false;
    }
    toEmit.add(key);
  }

  /** Whether a key changed since the last {@link #emit}. */
  boolean changedSinceEmit() {
    return !toEmit.isEmpty();
  }

  /** Hands every key changed since the last call to {@code emit}, in the order they changed. */
  void emit(Consumer<String> emit) {
    for (String key : toEmit) {
      emit.accept(key);
      if (!mirrored || dirty.get(key).mirrored) {
        settle(key);
      }
    }
    toEmit.clear();
  }

  /**
   * Up to {@code max} dirty keys with no mirror call out, oldest first; each is marked in flight
   * and moved behind the others so that a failing key does not starve the rest.
   */
  List<String> takeForMirror(int max) {
    List<String> out = new ArrayList<>(Math.min(max, dirty.size()));
    Iterator<Map.Entry<String, Dirty>> it = dirty.entrySet().iterator();
    while (out.size() < max && it.hasNext()) {
      Map.Entry<String, Dirty> e = it.next();
      if (!e.getValue().inFlight && !e.getValue().mirrored) {
        out.add(e.getKey());
      }
    }
    for (String key : out) {
      Dirty d = dirty.remove(key);
      d.inFlight = true;
      dirty.put(key, d);
    }
    return out;
  }

  /** How often {@code key} changed so far; a mirror call remembers this at its start. */
  int changes(String key) {
    Dirty d = dirty.get(key);
    return d == null ? 0 : d.changes;
  }

  /**
   * A mirror call for {@code key} that started after {@code changesAtStart} changes ended. When it
   * settled the key and nothing changed since, the key is clean.
   */
  void mirrored(String key, int changesAtStart, boolean settled) {
    Dirty d = dirty.get(key);
    if (d == null) {
      return;
    }
    d.inFlight = false;
    if (settled && d.changes == changesAtStart) {
      d.mirrored = true;
      if (!toEmit.contains(key)) {
        settle(key);
      }
    }
  }

  private void settle(String key) {
    dirty.remove(key);
    store.delete(key);
  }

  int size() {
    return dirty.size();
  }

  /** The wall-clock time the oldest dirty key became dirty, or {@code Long.MAX_VALUE}. */
  long oldestSinceMs() {
    long min = Long.MAX_VALUE;
    for (Dirty d : dirty.values()) {
      min = Math.min(min, d.sinceMs);
    }
    return min;
  }
}
