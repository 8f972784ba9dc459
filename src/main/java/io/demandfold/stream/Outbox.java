package io.demandfold.stream;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The dirty keys of one task: keys whose folded value changed and is not yet both emitted
 * downstream and written to etcd. Each dirty key carries its latest value (and its encoding, made
 * once), so emitting and mirroring read nothing back from the store.
 *
 * <p>Which keys are dirty is kept in a changelogged store (key to the wall-clock time it became
 * dirty), a {@link DecodedStore}: it writes its changelog once per commit, in the same transaction
 * as the fold, so a key that turns dirty and clean between two commits costs nothing there. After a
 * restore or rebalance every key dirty at the last commit is emitted and written again (its value
 * is then read from the fold's store): a repeated record on a compacted topic or a join that
 * changes nothing in etcd is harmless, a lost one is not.
 *
 * <p>An outbox of an instance that does not mirror (mirror.enabled or mirror.tables false) keeps
 * its keys dirty once emitted, without their values, so that an instance that mirrors and takes the
 * task over in a rolling change writes them: a task that passes through a non-mirroring instance
 * never loses its way to etcd.
 *
 * <p>Keys are handed out oldest change first. Only the stream thread uses an outbox.
 *
 * @param <R> the value type (a folded record, or nothing for tables)
 */
final class Outbox<R> {
  private final KeyValueStore<String, Long> store;
  private final boolean mirrorsHere;
  private final LinkedHashMap<String, Dirty<R>> dirty = new LinkedHashMap<>();
  private final LinkedHashMap<String, Dirty<R>> toEmit = new LinkedHashMap<>();

  /** One dirty key: its latest value and where it stands. */
  static final class Dirty<R> {
    final String key;
    final long dirtySinceMs;
    R value;
    byte[] encoded;
    long emitSinceMs;
    long mirrorSinceMs;
    boolean inEtcd;
    boolean inFlight;
    long changedInFlightMs;
    int changes;
    int changesWhenTaken;

    Dirty(String key, long nowMs) {
      this.key = key;
      this.dirtySinceMs = nowMs;
      this.mirrorSinceMs = nowMs;
    }
  }

  /**
   * @param store the changelogged store of dirty keys
   * @param mirrorsHere whether this instance writes the keys to etcd; if not, they stay dirty for
   *     one that does
   */
  Outbox(KeyValueStore<String, Long> store, boolean mirrorsHere) {
    this.store = store;
    this.mirrorsHere = mirrorsHere;
    try (KeyValueIterator<String, Long> it = store.all()) {
      while (it.hasNext()) {
        KeyValue<String, Long> kv = it.next();
        Dirty<R> d = new Dirty<>(kv.key, kv.value);
        d.emitSinceMs = kv.value;
        dirty.put(kv.key, d);
        toEmit.put(kv.key, d);
      }
    }
  }

  /** The dirty entry of {@code key}, or {@code null} when it is clean. */
  Dirty<R> get(String key) {
    return dirty.get(key);
  }

  /** Marks {@code key} changed to {@code value} at wall-clock {@code nowMs}. */
  void mark(String key, R value, long nowMs) {
    Dirty<R> d = dirty.get(key);
    if (d == null) {
      d = new Dirty<>(key, nowMs);
      dirty.put(key, d);
      store.put(key, nowMs);
    } else if (d.inEtcd) {
      d.mirrorSinceMs = nowMs;
      dirty.remove(key);
      dirty.put(key, d);
    }
    if (d.inFlight && d.changedInFlightMs == 0) {
      d.changedInFlightMs = nowMs;
    }
    d.value = value;
    d.encoded = null;
    d.changes++;
    d.inEtcd = false;
    if (!toEmit.containsKey(key)) {
      d.emitSinceMs = nowMs;
      toEmit.put(key, d);
    }
  }

  /** Whether a key changed since it was last emitted. */
  boolean changedSinceEmit() {
    return !toEmit.isEmpty();
  }

  /**
   * Up to {@code max} keys changed since they were last emitted, oldest change first, whose oldest
   * unemitted change is at or before {@code notAfterMs}. The caller emits them, then calls {@link
   * #emitted} for each.
   */
  List<Dirty<R>> takeToEmit(int max, long notAfterMs) {
    List<Dirty<R>> out = new ArrayList<>(Math.min(max, toEmit.size()));
    for (Iterator<Dirty<R>> it = toEmit.values().iterator(); out.size() < max && it.hasNext(); ) {
      Dirty<R> d = it.next();
      if (d.emitSinceMs > notAfterMs) {
        break;
      }
      it.remove();
      out.add(d);
    }
    return out;
  }

  /**
   * A key taken by {@link #takeToEmit} was emitted with its latest value. Without a mirror here it
   * stays dirty, without its value, for an instance that mirrors.
   */
  void emitted(Dirty<R> d) {
    if (!mirrorsHere && !d.inFlight) {
      d.value = null;
      d.encoded = null;
    }
    settleIfClean(d);
  }

  /**
   * Up to {@code max} keys not in etcd and not in flight, oldest change not yet in etcd first,
   * whose oldest such change is at or before {@code notAfterMs}; each is marked in flight and moved
   * behind the others, so that a failing key does not starve the rest.
   */
  List<Dirty<R>> takeToMirror(int max, long notAfterMs) {
    List<Dirty<R>> out = new ArrayList<>(Math.min(max, 64));
    if (max <= 0) {
      return out;
    }
    for (Iterator<Dirty<R>> it = dirty.values().iterator(); out.size() < max && it.hasNext(); ) {
      Dirty<R> d = it.next();
      if (d.inFlight || d.inEtcd) {
        continue;
      }
      if (d.mirrorSinceMs > notAfterMs) {
        break;
      }
      out.add(d);
    }
    for (Dirty<R> d : out) {
      dirty.remove(d.key);
      dirty.put(d.key, d);
      d.inFlight = true;
      d.changesWhenTaken = d.changes;
    }
    return out;
  }

  /**
   * A mirror call for a key taken by {@link #takeToMirror} ended: {@code settled} when etcd holds
   * (a join at least as large as) the value it was taken with. A key that changed meanwhile stays
   * dirty from its next change on; a key not settled stays dirty and is taken again.
   */
  void mirrorCallEnded(Dirty<R> d, boolean settled) {
    d.inFlight = false;
    long changedMs = d.changedInFlightMs;
    d.changedInFlightMs = 0;
    if (dirty.get(d.key) != d) {
      return;
    }
    if (settled && d.changes == d.changesWhenTaken) {
      d.inEtcd = true;
      settleIfClean(d);
    } else if (settled) {
      d.mirrorSinceMs = changedMs;
    }
  }

  private void settleIfClean(Dirty<R> d) {
    if (d.inEtcd && !d.inFlight && !toEmit.containsKey(d.key) && dirty.remove(d.key) != null) {
      store.delete(d.key);
    }
  }

  int size() {
    return dirty.size();
  }

  /** The wall-clock time the oldest dirty key became dirty, or {@code Long.MAX_VALUE}. */
  long oldestSinceMs() {
    long min = Long.MAX_VALUE;
    for (Dirty<R> d : dirty.values()) {
      min = Math.min(min, d.dirtySinceMs);
    }
    return min;
  }
}
