package io.demandfold.mirror;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * The keys one task hands to the {@link LiveMirror}: the newest value of each key to write, taken
 * by the mirror's thread oldest first, and the writes etcd acknowledged, handed back to the task. A
 * key is in flight at most once; a value offered while its key is in flight waits for that call to
 * end. Values past the instance's byte budget are refused: the task keeps those keys dirty and
 * offers them again later (read back from its store), so an outage holds at most the budget here. A
 * key etcd refused for a reason of its own ({@link MirrorFailures#ofKey}) waits out a backoff of
 * its own ({@link KeyBackoff}) and is then written in a call of its own, so that it cannot fail a
 * batch of other keys again; the other keys go on meanwhile.
 *
 * <p>Thread-safe: {@link #offer} and {@link #drainAcks} are called by the task's stream thread, the
 * rest by the mirror's thread and jetcd's completion threads; a short lock guards the maps.
 *
 * @param <P> what is written for a key (a shard record, a table record)
 */
public final class MirrorLane<P> {
  /** How a key's write ended: etcd took it, etcd failed, or etcd refused the key for itself. */
  enum Ending {
    SETTLED,
    FAILED,
    REFUSED
  }

  /** Starts the etcd writes of keys with their values, one outcome per key in their order. */
  @FunctionalInterface
  public interface Writer<P> {
    List<CompletableFuture<MirrorOutcome>> write(List<String> keys, List<P> values);
  }

  /**
   * A write that ended: {@code version} of {@code key} is in etcd when {@code settled}; {@code
   * takenAtMs} is when the mirror took it, so every later change of the key came after that.
   */
  public record Ack(String key, long version, boolean settled, long takenAtMs) {}

  /** One key waiting or in flight: the value to write and its version. */
  static final class Entry<P> {
    final String key;
    P value;
    long version;
    long bytes;

    /** When the oldest change not yet taken was offered (wall clock): the key's place in line. */
    long sinceMs;

    /** A newer value offered while the key was in flight, written once that call ends. */
    Entry<P> next;

    /** How many times in a row etcd refused the key for a reason of its own; 0: never. */
    int refusals;

    /** While the key backs off: when it may be taken again (the mirror's clock). */
    long retryAtMs;

    Entry(String key, P value, long version, long bytes, long sinceMs) {
      this.key = key;
      this.value = value;
      this.version = version;
      this.bytes = bytes;
      this.sinceMs = sinceMs;
    }
  }

  private final String name;
  private final RecordKind kind;
  private final int keysPerCall;
  private final Writer<P> writer;
  private final LiveMirror mirror;
  private final LinkedHashMap<String, Entry<P>> ready = new LinkedHashMap<>();
  private final Map<String, Entry<P>> inFlight = new HashMap<>();
  private final Map<String, Entry<P>> backingOff = new HashMap<>();
  private final PriorityQueue<Entry<P>> retries =
      new PriorityQueue<>(Comparator.comparingLong((Entry<P> e) -> e.retryAtMs));
  private final Queue<Ack> acks = new ConcurrentLinkedQueue<>();
  private boolean closed;

  MirrorLane(String name, RecordKind kind, int keysPerCall, Writer<P> writer, LiveMirror mirror) {
    this.name = name;
    this.kind = kind;
    this.keysPerCall = keysPerCall;
    this.writer = writer;
    this.mirror = mirror;
  }

  /** What the lane writes, for logs (e.g. "shard records of task 0_1"). */
  public String name() {
    return name;
  }

  /** Whether this lane writes shard or table records. */
  RecordKind kind() {
    return kind;
  }

  /** Most keys one call of this lane writes. */
  int keysPerCall() {
    return keysPerCall;
  }

  /**
   * Hands {@code value}, version {@code version} of {@code key}, to the mirror (it replaces a value
   * of the key not yet taken).
   *
   * @param bytes about how much heap the value holds
   * @param nowMs wall clock
   * @return false when the instance's byte budget is spent or the lane is closed: the caller keeps
   *     the key and offers it again later
   */
  public boolean offer(String key, P value, long version, long bytes, long nowMs) {
    synchronized (this) {
      if (closed) {
        return false;
      }
      Entry<P> flying = inFlight.get(key);
      Entry<P> e = flying != null ? flying.next : waiting(key);
      long grow = bytes - (e == null ? 0 : e.bytes);
      if (grow > 0 && !mirror.reserve(grow)) {
        return false;
      }
      if (grow < 0) {
        mirror.release(-grow);
      }
      if (e != null) {
        e.value = value;
        e.version = version;
        e.bytes = bytes;
      } else if (flying != null) {
        flying.next = new Entry<>(key, value, version, bytes, nowMs);
      } else {
        ready.put(key, new Entry<>(key, value, version, bytes, nowMs));
      }
    }
    mirror.offered(nowMs);
    return true;
  }

  /** Hands the writes acknowledged since the last call to {@code sink}, on the caller's thread. */
  public void drainAcks(Consumer<Ack> sink) {
    Ack a;
    while ((a = acks.poll()) != null) {
      sink.accept(a);
    }
  }

  /** Keys waiting to be taken, backing off, or in flight. */
  public synchronized int size() {
    return ready.size() + inFlight.size() + backingOff.size();
  }

  /** Keys waiting out a backoff of their own now. */
  synchronized int backingOff() {
    return backingOff.size();
  }

  /** The entry of {@code key} waiting to be taken or backing off, or {@code null}. */
  private Entry<P> waiting(String key) {
    Entry<P> e = ready.get(key);
    return e != null ? e : backingOff.get(key);
  }

  /** Keys whose backoff ended by {@code nowMs} wait to be taken again, behind the others. */
  private void endBackoffs(long nowMs) {
    int ended = 0;
    while (!retries.isEmpty() && retries.peek().retryAtMs <= nowMs) {
      Entry<P> e = retries.poll();
      backingOff.remove(e.key);
      ready.put(e.key, e);
      ended++;
    }
    if (ended > 0) {
      mirror.backingOff(-ended);
    }
  }

  /**
   * When the oldest key waiting to be taken at {@code nowMs} was offered, {@code Long.MAX_VALUE}
   * when none waits (a key backing off does not).
   */
  synchronized long oldestReadyMs(long nowMs) {
    endBackoffs(nowMs);
    Iterator<Entry<P>> it = ready.values().iterator();
    return it.hasNext() ? it.next().sinceMs : Long.MAX_VALUE;
  }

  /**
   * Takes up to {@code max} waiting keys offered at or before {@code notAfterMs}, oldest first, and
   * puts them in flight; a key etcd refused for itself before is taken alone (first, or left for a
   * later call), a key backing off not before its backoff ends at {@code nowMs}.
   */
  synchronized List<Entry<P>> take(int max, long notAfterMs, long nowMs) {
    endBackoffs(nowMs);
    List<Entry<P>> out = new ArrayList<>(Math.min(max, ready.size()));
    for (Iterator<Entry<P>> it = ready.values().iterator(); out.size() < max && it.hasNext(); ) {
      Entry<P> e = it.next();
      if (e.sinceMs > notAfterMs) {
        break;
      }
      boolean alone = e.refusals > 0;
      if (alone && !out.isEmpty()) {
        continue;
      }
      it.remove();
      inFlight.put(e.key, e);
      out.add(e);
      if (alone) {
        break;
      }
    }
    return out;
  }

  /** Starts the writes of {@code batch}; each completion comes back through {@link #ended}. */
  List<CompletableFuture<MirrorOutcome>> write(List<Entry<P>> batch) {
    List<String> keys = new ArrayList<>(batch.size());
    List<P> values = new ArrayList<>(batch.size());
    for (Entry<P> e : batch) {
      keys.add(e.key);
      values.add(e.value);
    }
    List<CompletableFuture<MirrorOutcome>> out = writer.write(keys, values);
    if (out.size() != batch.size()) {
      throw new IllegalStateException(out.size() + " outcomes for " + batch.size() + " keys");
    }
    return out;
  }

  /**
   * A write of {@code e} ended at {@code nowMs}. A settled one is acknowledged to the task (and a
   * value offered meanwhile waits in its place). An unsettled one waits again with the newest value
   * offered meanwhile, if any: behind the others when etcd failed; in a backoff of its own when
   * etcd refused the key for itself, so that a key etcd keeps refusing holds no other key up.
   *
   * @return how many times in a row etcd refused the key for itself (0 unless {@code REFUSED})
   */
  int ended(Entry<P> e, Ending how, long takenAtMs, long nowMs) {
    long freed = 0;
    int refusals = 0;
    synchronized (this) {
      if (inFlight.remove(e.key) != e) {
        return 0; // the lane was closed meanwhile
      }
      Entry<P> next = e.next;
      e.next = null;
      if (how == Ending.SETTLED) {
        acks.add(new Ack(e.key, e.version, true, takenAtMs));
        freed = e.bytes;
        if (next != null) {
          ready.put(e.key, next);
        }
      } else {
        Entry<P> waits = e;
        if (next != null) {
          freed = e.bytes;
          next.sinceMs = e.sinceMs;
          next.refusals = e.refusals;
          waits = next;
        }
        if (how == Ending.REFUSED) {
          refusals = ++waits.refusals;
          waits.retryAtMs = nowMs + mirror.keyBackoff().delayMs(refusals);
          backingOff.put(waits.key, waits);
          retries.add(waits);
          mirror.backingOff(1);
        } else {
          ready.put(waits.key, waits);
        }
      }
    }
    if (freed > 0) {
      mirror.release(freed);
    }
    return refusals;
  }

  /**
   * Stops taking offers and drops what waits (the task keeps those keys dirty in its changelog);
   * writes in flight end unacknowledged. Returns the bytes released.
   */
  long close() {
    long bytes = 0;
    synchronized (this) {
      closed = true;
      for (Entry<P> e : ready.values()) {
        bytes += e.bytes;
      }
      for (Entry<P> e : inFlight.values()) {
        bytes += e.bytes + (e.next == null ? 0 : e.next.bytes);
      }
      for (Entry<P> e : backingOff.values()) {
        bytes += e.bytes;
      }
      mirror.backingOff(-backingOff.size());
      ready.clear();
      inFlight.clear();
      backingOff.clear();
      retries.clear();
    }
    return bytes;
  }

  synchronized boolean isClosed() {
    return closed;
  }
}
