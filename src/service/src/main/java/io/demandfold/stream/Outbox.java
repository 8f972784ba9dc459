package io.demandfold.stream;

import io.demandfold.mirror.MirrorLane;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The dirty keys of one task: keys whose folded value changed and is not yet both emitted
 * downstream and acknowledged by etcd. Which keys are dirty is kept in a changelogged store (key to
 * the wall-clock time it became dirty), written in the same transaction as the fold; a key leaves
 * it only once its latest change was emitted and etcd acknowledged a write of that change (the
 * acknowledgement reaches the stream thread through its {@link MirrorLane}, and the key is removed
 * in the transaction after it). After a restore or rebalance every key dirty at the last commit is
 * emitted and written again (its value read from the fold's store): a repeated record on a
 * compacted topic or a join that changes nothing in etcd is harmless, a lost one is not.
 *
 * <p>The outbox holds no values: each key's version (its changes so far), the version handed to the
 * mirror and the version etcd acknowledged, and when each wait began. Values are read from the
 * fold's store when a key is emitted, or handed to the mirror after the mirror's byte budget
 * refused it.
 *
 * <p>A dirty key may also be <em>held</em> ({@link HeldKeys}): kept in the store alone, not in
 * memory, neither emitted nor handed to the mirror, until its task takes it back ({@link
 * #releaseHeld}), in key order. A task holds the keys it changes while it catches up on the log
 * ({@link #hold}); after a restore or rebalance every key dirty at the last commit is held, and so
 * are the keys written again after etcd lost writes that were not dirty already. A held key that
 * changes while the task is live becomes dirty in memory again ({@link #mark}).
 *
 * <p>An outbox of an instance that does not mirror (mirror.enabled or mirror.tables false) settles
 * a key once it is emitted, and keeps instead one marker in its store ({@link #UNMIRRORED}): an
 * instance that mirrors and takes the task over (a rolling change) finds it and writes every key of
 * the task ({@link #unmirrored}, {@link #markAll}), so that no change is lost on its way to etcd
 * and no key stays dirty for ever.
 *
 * <p>Keys are handed out oldest change first. Only the stream thread uses an outbox.
 */
final class Outbox {
  /**
   * The key of the marker "this task's fold changed while no instance mirrored it": not a key of
   * any record ({@code <hex>/<shard>} or {@code <hex>}), it sorts before them all.
   */
  static final String UNMIRRORED = "\u0000unmirrored";

  private final KeyValueStore<String, Long> store;
  private final boolean mirrorsHere;
  private final HeldKeys held;
  private final LinkedHashMap<String, Dirty> dirty = new LinkedHashMap<>();
  private final LinkedHashMap<String, Dirty> toEmit = new LinkedHashMap<>();
  private final LinkedHashMap<String, Dirty> unhanded = new LinkedHashMap<>();
  private boolean unmirrored;

  /** The last version given to a change, over all keys: versions never repeat within a task. */
  private long versions;

  private long etcdRewinds;

  /** One dirty key and where it stands. */
  static final class Dirty {
    final String key;
    final long dirtySinceMs;
    long emitSinceMs;

    /** When the key's oldest change not handed to the mirror was made. */
    long unhandedSinceMs;

    /** When the key's oldest change etcd has not acknowledged was made (at most). */
    long etcdSinceMs;

    /**
     * The version of the key's latest change; versions grow over the whole outbox, so that an
     * acknowledgement of a write made before the key was last settled is older than any version the
     * key has had since.
     */
    long version;

    long handedVersion;

    /** The latest version etcd acknowledged, or the last version before the key became dirty. */
    long ackedVersion;

    Dirty(String key, long nowMs, long version) {
      this.key = key;
      this.dirtySinceMs = nowMs;
      this.emitSinceMs = nowMs;
      this.unhandedSinceMs = nowMs;
      this.etcdSinceMs = nowMs;
      this.version = version;
      this.handedVersion = version;
      this.ackedVersion = version;
    }

    boolean inEtcd() {
      return ackedVersion == version;
    }
  }

  /**
   * Every key of {@code store} is held: its change is not known to be emitted or in etcd.
   *
   * @param store the changelogged store of dirty keys
   * @param mirrorsHere whether this instance writes the keys to etcd; if not, they are settled once
   *     emitted and the store keeps the {@link #UNMIRRORED} marker
   */
  Outbox(KeyValueStore<String, Long> store, boolean mirrorsHere) {
    this.store = store;
    this.mirrorsHere = mirrorsHere;
    long count = 0;
    long since = Long.MAX_VALUE;
    try (KeyValueIterator<String, Long> it = store.all()) {
      while (it.hasNext()) {
        KeyValue<String, Long> kv = it.next();
        if (kv.key.equals(UNMIRRORED)) {
          unmirrored = true;
          continue;
        }
        count++;
        since = Math.min(since, kv.value);
      }
    }
    this.held = new HeldKeys(store, count, since);
  }

  /**
   * Whether the task's fold changed while no instance mirrored it (the marker is in the store), so
   * that an instance that mirrors must write every key of the task ({@link #markAll}).
   */
  boolean unmirrored() {
    return unmirrored && mirrorsHere;
  }

  /**
   * Holds every key of {@code keys} (all the task's records, from its store) that is not dirty
   * already and removes the marker, in the same transaction: if it aborts, both come back.
   */
  void markAll(KeyValueIterator<String, ?> keys, long nowMs) {
    while (keys.hasNext()) {
      String key = keys.next().key;
      if (dirty.containsKey(key)) {
        mark(key, nowMs);
      } else {
        held.hold(key, nowMs);
      }
    }
    store.delete(UNMIRRORED);
    unmirrored = false;
  }

  /**
   * Marks every key of {@code keys} (all the task's records, from its store) to be written into
   * etcd again: etcd lost writes it had acknowledged ({@code EtcdMirror#rewinds}). A key dirty in
   * memory gets a new version, so that only a write taken after this call settles it, and is not
   * emitted again; any other is held (and emitted again when it leaves the hold: harmless on a
   * compacted topic), so that a task of a million keys does not hold them all in memory. Every key
   * is kept in the store until written. Does nothing without a mirror here.
   */
  void rewriteAll(KeyValueIterator<String, ?> keys, long nowMs) {
    if (!mirrorsHere) {
      return;
    }
    while (keys.hasNext()) {
      String key = keys.next().key;
      if (!dirty.containsKey(key)) {
        held.hold(key, nowMs);
        continue;
      }
      Dirty d = newVersion(key, nowMs);
      if (!unhanded.containsKey(key)) {
        d.unhandedSinceMs = nowMs;
        unhanded.put(key, d);
      }
    }
  }

  /**
   * Remembers how often etcd was seen to lose writes ({@code EtcdMirror#rewinds}) when the task
   * starts to mirror, for {@link #rewriteAllIfEtcdRewound}.
   */
  void etcdRewindsAtStart(long rewinds) {
    etcdRewinds = rewinds;
  }

  /**
   * When etcd lost writes since the last look ({@code rewinds} grew), marks every key of the task's
   * store ({@code keys}) to be written again ({@link #rewriteAll}): the keys etcd had acknowledged
   * may be gone from it.
   */
  void rewriteAllIfEtcdRewound(
      long rewinds, Supplier<? extends KeyValueIterator<String, ?>> keys, long nowMs) {
    if (rewinds == etcdRewinds) {
      return;
    }
    etcdRewinds = rewinds;
    try (KeyValueIterator<String, ?> it = keys.get()) {
      rewriteAll(it, nowMs);
    }
  }

  /**
   * {@code key}'s dirty entry, made when it was clean or held (then it leaves the hold), with a new
   * version to settle.
   */
  private Dirty newVersion(String key, long nowMs) {
    Dirty d = dirty.get(key);
    if (d == null) {
      d = new Dirty(key, nowMs, versions);
      dirty.put(key, d);
      if (held.holds(key)) {
        held.left();
      } else {
        store.put(key, nowMs);
      }
    }
    if (d.inEtcd()) {
      d.etcdSinceMs = nowMs;
    }
    d.version = ++versions;
    return d;
  }

  /** Without a mirror here, the first change or settled key puts the marker in the store. */
  private void markUnmirrored() {
    if (!mirrorsHere && !unmirrored) {
      store.put(UNMIRRORED, 0L);
      unmirrored = true;
    }
  }

  /** The dirty entry of {@code key}, or {@code null} when it is clean. */
  Dirty get(String key) {
    return dirty.get(key);
  }

  /**
   * Holds {@code key}, changed at wall-clock {@code nowMs} (its task catches up on the log): it is
   * then neither emitted nor handed to the mirror until {@link #releaseHeld} gives it back. A key
   * dirty in memory leaves memory for the hold, unless a write of it is still out (handed and not
   * acknowledged): that one is marked instead ({@link #mark}) and its entry returned; {@code null}
   * when held.
   */
  Dirty hold(String key, long nowMs) {
    Dirty d = dirty.get(key);
    if (d != null && d.ackedVersion < d.handedVersion) {
      return mark(key, nowMs);
    }
    markUnmirrored();
    if (d == null) {
      held.hold(key, nowMs);
    } else {
      // an acknowledgement of a write handed before finds no entry and changes nothing
      dirty.remove(key);
      toEmit.remove(key);
      unhanded.remove(key);
      held.adopt(nowMs);
    }
    return null;
  }

  /** Keys held: dirty in the store alone. */
  long held() {
    return held.count();
  }

  /**
   * Whether held keys wait for longer than {@code maxMs} at {@code nowMs}, or a pass over them has
   * begun: a task that catches up lets go of them then, in one pass.
   */
  boolean heldTooLong(long nowMs, long maxMs) {
    return held.passing() || (held.count() > 0 && nowMs - held.sinceMs() >= maxMs);
  }

  /**
   * Takes up to {@code max} held keys back, in key order from where the pass over them stands: each
   * becomes dirty in memory with a new version, to be handed to the mirror, not yet to be emitted
   * (the caller emits it at once, or {@link #emitLater}).
   */
  List<Dirty> releaseHeld(int max, long nowMs) {
    List<Dirty> out = new ArrayList<>();
    for (String key : held.next(max, dirty::containsKey, nowMs)) {
      held.left();
      Dirty d = new Dirty(key, nowMs, versions);
      d.version = ++versions;
      dirty.put(key, d);
      if (mirrorsHere) {
        unhanded.put(key, d);
      }
      out.add(d);
    }
    return out;
  }

  /** A key taken back from the hold is emitted with the others changed since {@code nowMs}. */
  void emitLater(Dirty d, long nowMs) {
    if (toEmit.putIfAbsent(d.key, d) == null) {
      d.emitSinceMs = nowMs;
    }
  }

  /** Marks {@code key} changed at wall-clock {@code nowMs}; returns its entry. */
  Dirty mark(String key, long nowMs) {
    markUnmirrored();
    Dirty d = newVersion(key, nowMs);
    if (!toEmit.containsKey(key)) {
      d.emitSinceMs = nowMs;
      toEmit.put(key, d);
    }
    if (mirrorsHere && !unhanded.containsKey(key)) {
      d.unhandedSinceMs = nowMs;
      unhanded.put(key, d);
    }
    return d;
  }

  /**
   * Hands the latest version of {@code d} to {@code lane} with its value; false (and the key stays
   * unhanded) when the mirror's byte budget refuses it.
   */
  <P> boolean hand(Dirty d, MirrorLane<P> lane, P value, long bytes, long nowMs) {
    if (!lane.offer(d.key, value, d.version, bytes, nowMs)) {
      return false;
    }
    d.handedVersion = d.version;
    unhanded.remove(d.key);
    return true;
  }

  /**
   * Hands on up to {@code max} keys whose latest change is not yet handed to the mirror, oldest
   * first, whose oldest such change is at or before {@code notAfterMs}, each with its value read by
   * {@code values}; stops at the first the mirror's byte budget refuses. Returns how many went.
   */
  <P> int handUnhanded(
      MirrorLane<P> lane,
      int max,
      long notAfterMs,
      long nowMs,
      Function<String, P> values,
      ToLongFunction<P> bytes) {
    int n = 0;
    for (Iterator<Dirty> it = unhanded.values().iterator(); n < max && it.hasNext(); ) {
      Dirty d = it.next();
      if (d.unhandedSinceMs > notAfterMs) {
        break;
      }
      P value = values.apply(d.key);
      if (!lane.offer(d.key, value, d.version, bytes.applyAsLong(value), nowMs)) {
        break;
      }
      d.handedVersion = d.version;
      it.remove();
      n++;
    }
    return n;
  }

  /** Whether some key waits to be handed to the mirror. */
  boolean hasUnhanded() {
    return !unhanded.isEmpty();
  }

  /**
   * etcd acknowledged a write of {@code ack.version()} of its key: the key is in etcd when that is
   * its latest version, and settles once emitted too.
   */
  void acked(MirrorLane.Ack ack) {
    Dirty d = dirty.get(ack.key());
    if (d == null || ack.version() <= d.ackedVersion) {
      return; // a write from before the key was last settled, or older than one acknowledged
    }
    d.ackedVersion = ack.version();
    if (d.inEtcd()) {
      settleIfClean(d);
    } else {
      // every change not acknowledged came after the mirror took the acknowledged one
      d.etcdSinceMs = Math.max(d.etcdSinceMs, ack.takenAtMs());
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
  List<Dirty> takeToEmit(int max, long notAfterMs) {
    List<Dirty> out = new ArrayList<>(Math.min(max, toEmit.size()));
    for (Iterator<Dirty> it = toEmit.values().iterator(); out.size() < max && it.hasNext(); ) {
      Dirty d = it.next();
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
   * is settled (the marker stands for it).
   */
  void emitted(Dirty d) {
    if (!mirrorsHere) {
      markUnmirrored();
      d.ackedVersion = d.version;
    }
    settleIfClean(d);
  }

  private void settleIfClean(Dirty d) {
    if (d.inEtcd() && !toEmit.containsKey(d.key) && dirty.remove(d.key) != null) {
      unhanded.remove(d.key);
      store.delete(d.key);
    }
  }

  /** Dirty keys: not yet emitted or not yet in etcd, held ones included. */
  long size() {
    return dirty.size() + held.count();
  }

  /**
   * Keys whose latest change etcd has not acknowledged, held ones included, and the wall-clock time
   * of the oldest such change ({@code Long.MAX_VALUE} when none): what waits for etcd, not for the
   * output topics.
   */
  long[] waitingForEtcd() {
    if (!mirrorsHere) {
      return new long[] {0, Long.MAX_VALUE};
    }
    long n = held.count();
    long oldest = held.sinceMs();
    for (Dirty d : dirty.values()) {
      if (!d.inEtcd()) {
        n++;
        oldest = Math.min(oldest, d.etcdSinceMs);
      }
    }
    return new long[] {n, oldest};
  }
}
