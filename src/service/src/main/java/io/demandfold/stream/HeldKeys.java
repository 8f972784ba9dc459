package io.demandfold.stream;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The dirty keys an {@link Outbox} keeps in its changelogged store alone, not in memory: held while
 * their task catches up on the log, so that a shard is emitted and written about once for the whole
 * catch-up instead of once per change, and whatever a restart, a rebalance or etcd losing writes
 * left to do. A store of a million held keys costs no heap (the store is RocksDB unless {@code
 * stores.in.memory}); this class keeps only their count, when the oldest was held and where a pass
 * over them stands.
 *
 * <p>Held keys leave in passes in key order ({@link #next}): a task hands the mirror its shards in
 * the order of their etcd keys, in full batches. A key held again behind a pass waits for the next
 * one; {@link #sinceMs} then goes back to when the pass began. Only the stream thread uses it.
 */
final class HeldKeys {
  private final KeyValueStore<String, Long> store;
  private long count;
  private long sinceMs = Long.MAX_VALUE;

  /** The last key a pass looked at; {@code null}: the next pass starts at the first key. */
  private String cursor;

  private long passStartMs;

  /**
   * @param store the outbox's store: key to the time it became dirty
   * @param count the keys it holds now (besides {@link Outbox#UNMIRRORED})
   * @param sinceMs the earliest of their times ({@code Long.MAX_VALUE} when none)
   */
  HeldKeys(KeyValueStore<String, Long> store, long count, long sinceMs) {
    this.store = store;
    this.count = count;
    this.sinceMs = count == 0 ? Long.MAX_VALUE : sinceMs;
  }

  /** Keys held. */
  long count() {
    return count;
  }

  /** When the oldest held key was held, at most; {@code Long.MAX_VALUE} when none is. */
  long sinceMs() {
    return sinceMs;
  }

  /** Whether a pass over the held keys has begun and not reached the last key. */
  boolean passing() {
    return cursor != null;
  }

  /** Whether {@code key}, which is not dirty in memory, is held. */
  boolean holds(String key) {
    return count > 0 && store.get(key) != null;
  }

  /** Holds {@code key}, which is not dirty in memory, changed at {@code nowMs}. */
  void hold(String key, long nowMs) {
    if (store.get(key) != null) {
      return; // held already, since its first change
    }
    store.put(key, nowMs);
    if (count++ == 0) {
      sinceMs = nowMs;
    }
  }

  /** A key dirty in memory (so in the store already) is held from {@code nowMs} on. */
  void adopt(long nowMs) {
    if (count++ == 0) {
      sinceMs = nowMs;
    }
  }

  /** A held key became dirty in memory: it is no longer held (its store entry stays). */
  void left() {
    if (--count == 0) {
      sinceMs = Long.MAX_VALUE;
    }
  }

  /**
   * Up to {@code max} held keys from where the pass stands, in key order, skipping {@code inMemory}
   * ones and the marker; they stay held until the caller says each {@link #left}. A pass that
   * reaches the last key ends, and the next call begins another at the first.
   */
  List<String> next(int max, Predicate<String> inMemory, long nowMs) {
    if (count == 0 || max <= 0) {
      return new ArrayList<>();
    }
    List<String> out = new ArrayList<>((int) Math.min(max, Math.min(count, 4096)));
    if (cursor == null) {
      passStartMs = nowMs;
    }
    String last = cursor;
    boolean ended = true;
    try (KeyValueIterator<String, Long> it =
        cursor == null ? store.all() : store.range(cursor + '\u0000', null)) {
      while (it.hasNext()) {
        if (out.size() == max) {
          ended = false;
          break;
        }
        KeyValue<String, Long> kv = it.next();
        last = kv.key;
        if (!kv.key.equals(Outbox.UNMIRRORED) && !inMemory.test(kv.key)) {
          out.add(kv.key);
        }
      }
    }
    cursor = ended ? null : last;
    if (ended && count > out.size()) {
      // the keys held behind this pass were held after it began
      sinceMs = passStartMs;
    }
    return out;
  }
}
