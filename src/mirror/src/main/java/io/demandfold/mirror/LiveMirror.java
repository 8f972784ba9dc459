package io.demandfold.mirror;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import io.demandfold.core.Causes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The instance's writer of folded records into etcd: one thread that takes the keys tasks hand over
 * ({@link MirrorLane}), oldest first over all lanes, and writes them in batches of up to {@code
 * batchKeys}, as many batches in flight as an adaptive concurrency limit allows (Netflix
 * concurrency-limits: the limit grows while etcd answers in about its usual time and shrinks as its
 * answers slow down or time out). While the limit is reached, the keys wait and every change of a
 * waiting key replaces its value: each write then carries more events, so the etcd work follows
 * what etcd can take, not the event rate. A key is written as soon as a call is free: when etcd
 * keeps up, a change reaches it one round trip after it was folded, without waiting for the stream
 * thread's next punctuation or commit.
 *
 * <p>The stream threads never wait for it: {@link MirrorLane#offer} takes a short lock, and the
 * values held are bounded by {@code bufferBytes} over all lanes (an offer past the bound is
 * refused, and the task offers the key again later). A call that failed for an error of etcd itself
 * pauses every lane, exponentially up to 5 s: etcd is one cluster. A key etcd refused for a reason
 * of its own ({@link MirrorFailures#ofKey}: permission denied, a request too large, every
 * compare-and-swap lost) pauses nothing: that key alone backs off ({@link KeyBackoff}), counted and
 * logged, and the others go on. Acknowledged writes go back to each lane's task, which settles the
 * key in its next transaction.
 */
public final class LiveMirror implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LiveMirror.class);

  /**
   * After this long without a call, the mirror reads one key only to see etcd's answer ({@link
   * EtcdMirror#probe}): etcd losing writes is then noticed, and every record written again, within
   * about this long of etcd answering again, even when no key changes.
   */
  static final long PROBE_IDLE_MS = 10_000;

  private final EtcdMirror etcd;
  private final MirrorMetrics metrics;
  private final Limiter<Void> limiter;
  private final Limit limit;
  private final int batchKeys;
  private final long bufferBytes;
  private final long lingerMs;
  private final LongSupplier clockMs;
  private final List<MirrorLane<?>> lanes = new CopyOnWriteArrayList<>();
  private final AtomicLong heldBytes = new AtomicLong();
  private final AtomicInteger callsInFlight = new AtomicInteger();
  private final AtomicInteger tableCallsInFlight = new AtomicInteger();
  private final AtomicLong keysWritten = new AtomicLong();
  private final AtomicBoolean probing = new AtomicBoolean();
  private final KeyBackoff keyBackoff;
  private final AtomicLong idleLooks = new AtomicLong();
  private final AtomicLong permitsRefused = new AtomicLong();
  private volatile long lastCallMs;
  private final Thread thread;
  private volatile boolean closed;
  private volatile boolean waitingForWork;
  private volatile LongSupplier coalesceMs = () -> 0;
  private volatile long lingerNowMs;
  private final CallFailures failures;
  private int nextLane;

  /**
   * @param etcd what the lanes' writers write through
   * @param metrics where the keys' waits and the calls' times are recorded
   * @param limit the adaptive concurrency limit of calls in flight ({@link MirrorLimits})
   * @param batchKeys most shard keys per call (a table record is a call of its own)
   * @param bufferBytes most bytes of values held over all lanes
   * @param lingerMs how long a key waits after its first change before it is taken (0: none)
   * @param name the thread's name
   */
  public LiveMirror(
      EtcdMirror etcd,
      MirrorMetrics metrics,
      Limit limit,
      int batchKeys,
      long bufferBytes,
      long lingerMs,
      String name) {
    this(
        etcd,
        metrics,
        limit,
        batchKeys,
        bufferBytes,
        lingerMs,
        name,
        System::currentTimeMillis,
        KeyBackoff.jittered());
  }

  LiveMirror(
      EtcdMirror etcd,
      MirrorMetrics metrics,
      Limit limit,
      int batchKeys,
      long bufferBytes,
      long lingerMs,
      String name,
      LongSupplier clockMs,
      KeyBackoff keyBackoff) {
    if (batchKeys < 1) {
      throw new IllegalArgumentException("batchKeys must be >= 1, got " + batchKeys);
    }
    if (bufferBytes < 1) {
      throw new IllegalArgumentException("bufferBytes must be >= 1, got " + bufferBytes);
    }
    this.etcd = etcd;
    this.metrics = metrics;
    this.limit = limit;
    this.limiter = SimpleLimiter.newBuilder().named(name).limit(limit).build();
    this.batchKeys = batchKeys;
    this.bufferBytes = bufferBytes;
    this.lingerMs = lingerMs;
    this.clockMs = clockMs;
    this.keyBackoff = keyBackoff;
    this.failures = new CallFailures(metrics);
    this.lastCallMs = clockMs.getAsLong();
    this.thread = new Thread(this::run, name);
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * A lane for one task's keys of {@code kind}; {@code writer} starts their etcd writes (on this
   * mirror's thread), up to {@code batchKeys} keys a call for shard records, one for table records
   * (each its own request). Close it with {@link #remove} when the task closes.
   */
  public <P> MirrorLane<P> lane(String name, RecordKind kind, MirrorLane.Writer<P> writer) {
    int keysPerCall = kind == RecordKind.SHARD ? batchKeys : 1;
    MirrorLane<P> lane = new MirrorLane<>(name, kind, keysPerCall, writer, this);
    lanes.add(lane);
    return lane;
  }

  /**
   * How much longer than {@code mirror.linger.ms} a key waits after its first change before it is
   * taken, read before every call: the pipeline sets it to how far its emit pacing stretched the
   * emit interval, so that while the stream thread lags its events, the mirror's etcd work (the
   * encoding, the gRPC calls and etcd's own CPU, on the cores the fold needs) coalesces as the
   * output topics do, and stops doing so once the fold keeps up.
   */
  public void coalesceFor(LongSupplier extraLingerMs) {
    this.coalesceMs = extraLingerMs;
  }

  /** Closes {@code lane}: what waits in it is dropped (its task keeps the keys dirty). */
  public void remove(MirrorLane<?> lane) {
    lanes.remove(lane);
    release(lane.close());
  }

  /** What the lanes write through. */
  public EtcdMirror etcd() {
    return etcd;
  }

  /** The concurrency limit now: how many calls may be in flight. */
  public int limit() {
    return limit.getLimit();
  }

  /** Calls in flight now. */
  public int callsInFlight() {
    return callsInFlight.get();
  }

  /** Bytes of values the lanes hold now. */
  public long heldBytes() {
    return heldBytes.get();
  }

  /** Keys written (settled) so far. */
  public long keysWritten() {
    return keysWritten.get();
  }

  /** Most shard keys one call writes ({@code mirror.batch.keys}). */
  public int batchKeys() {
    return batchKeys;
  }

  boolean reserve(long bytes) {
    while (true) {
      long held = heldBytes.get();
      if (held + bytes > bufferBytes && held > 0) {
        return false;
      }
      if (heldBytes.compareAndSet(held, held + bytes)) {
        return true;
      }
    }
  }

  void release(long bytes) {
    heldBytes.addAndGet(-bytes);
  }

  /** How long a key etcd refused for itself waits before it is tried again. */
  KeyBackoff keyBackoff() {
    return keyBackoff;
  }

  /** {@code delta} keys of a lane began ({@code > 0}) or ended ({@code < 0}) a backoff. */
  void backingOff(int delta) {
    metrics.backingOff(delta);
  }

  /** Times the thread found no key due and waited for one (for tests: it looked, nothing went). */
  long idleLooks() {
    return idleLooks.get();
  }

  /** Times the thread had a key due and the limit refused it a call. */
  long permitsRefused() {
    return permitsRefused.get();
  }

  /**
   * A key changed at {@code sinceMs} was offered: wakes the thread when it waits for work (not when
   * it waits for a call) and the key is due; one not due yet is found by the thread's next look
   * (within 100 ms of its due time), so that a coalescing mirror is not woken at the event rate.
   */
  void offered(long sinceMs) {
    if (waitingForWork && sinceMs + lingerNowMs <= clockMs.getAsLong()) {
      waitingForWork = false;
      LockSupport.unpark(thread);
    }
  }

  /** A call ended: wakes the thread, which may start another. */
  private void callEnded() {
    LockSupport.unpark(thread);
  }

  private void run() {
    while (!closed) {
      try {
        long now = clockMs.getAsLong();
        long wait = failures.pausedUntilMs() - now;
        if (wait > 0) {
          LockSupport.parkNanos(this, Math.min(wait, 100) * 1_000_000);
          continue;
        }
        long linger = lingerMs + coalesceMs.getAsLong();
        lingerNowMs = linger;
        MirrorLane<?> lane = oldest(now, now - linger);
        if (lane == null) {
          // nothing due: sleep until an offer wakes us (checked again once the flag is up, so
          // that an offer in between is not missed) or the linger of the oldest key ends
          waitingForWork = true;
          lane = oldest(now, now - linger);
          if (lane == null) {
            probeIfIdle(now);
            idleLooks.incrementAndGet();
            LockSupport.parkNanos(this, parkNanos(now, linger));
            waitingForWork = false;
            continue;
          }
          waitingForWork = false;
        }
        Optional<Limiter.Listener> permit = limiter.acquire(null);
        if (permit.isEmpty()) {
          permitsRefused.incrementAndGet();
          LockSupport.parkNanos(this, 50_000_000); // the end of a call wakes us
          continue;
        }
        start(lane, permit.get(), now, now - linger);
      } catch (Throwable e) {
        // an Error too: a mirror thread that died would leave etcd stale with nothing noticing
        log.error("the etcd mirror's thread failed and goes on", e);
        LockSupport.parkNanos(this, 100_000_000);
      }
    }
  }

  /** With no call for {@link #PROBE_IDLE_MS}, one probe of etcd at a time. */
  private void probeIfIdle(long now) {
    if (etcd == null
        || lanes.isEmpty()
        || now - lastCallMs < PROBE_IDLE_MS
        || !probing.compareAndSet(false, true)) {
      return;
    }
    lastCallMs = now;
    try {
      etcd.probe().whenComplete((r, e) -> probing.set(false));
    } catch (RuntimeException e) {
      probing.set(false);
    }
  }

  /** How long to sleep with nothing due: until the oldest waiting key's linger ends, or 100 ms. */
  private long parkNanos(long now, long linger) {
    long due = Long.MAX_VALUE;
    if (linger > 0) {
      boolean tables = tablesMayStart();
      for (MirrorLane<?> l : lanes) {
        if (!tables && l.kind() == RecordKind.TABLE) {
          continue; // the end of a table call wakes the thread
        }
        long ms = l.oldestReadyMs(now);
        if (ms != Long.MAX_VALUE) {
          due = Math.min(due, ms + linger);
        }
      }
    }
    return Math.max(1, Math.min(100, due - now)) * 1_000_000;
  }

  /**
   * The lane whose oldest waiting key is oldest, among those with a key due; round robin ties.
   * Table records, derived from the shard records and large, take at most a quarter of the limit
   * (at least one call), so that a table flush does not hold fresh shard records up.
   */
  private MirrorLane<?> oldest(long now, long notAfterMs) {
    boolean tables = tablesMayStart();
    MirrorLane<?>[] all = lanes.toArray(new MirrorLane<?>[0]);
    int n = all.length;
    if (n == 0) {
      return null;
    }
    nextLane = (nextLane + 1) % n;
    MirrorLane<?> best = null;
    long bestMs = Long.MAX_VALUE;
    for (int i = 0; i < n; i++) {
      MirrorLane<?> l = all[(nextLane + i) % n];
      if (!tables && l.kind() == RecordKind.TABLE) {
        continue;
      }
      long ms = l.oldestReadyMs(now);
      if (ms <= notAfterMs && ms < bestMs) {
        best = l;
        bestMs = ms;
      }
    }
    return best;
  }

  private boolean tablesMayStart() {
    return tableCallsInFlight.get() < Math.max(1, limit.getLimit() / 4);
  }

  private <P> void start(MirrorLane<P> lane, Limiter.Listener permit, long now, long notAfterMs) {
    List<MirrorLane.Entry<P>> batch = lane.take(lane.keysPerCall(), notAfterMs, now);
    if (batch.isEmpty()) {
      permit.onIgnore();
      return;
    }
    callsInFlight.incrementAndGet();
    lastCallMs = now;
    if (lane.kind() == RecordKind.TABLE) {
      tableCallsInFlight.incrementAndGet();
    }
    for (MirrorLane.Entry<P> e : batch) {
      metrics.waited(now - e.sinceMs);
    }
    List<CompletableFuture<MirrorOutcome>> outcomes;
    try {
      outcomes = lane.write(batch);
    } catch (RuntimeException | Error e) {
      CompletableFuture<MirrorOutcome> failed =
          CompletableFuture.completedFuture(MirrorOutcome.failed(e, 0));
      outcomes = new ArrayList<>();
      for (int i = 0; i < batch.size(); i++) {
        outcomes.add(failed);
      }
    }
    Call<P> call = new Call<>(lane, batch, permit, now);
    for (int i = 0; i < batch.size(); i++) {
      MirrorLane.Entry<P> e = batch.get(i);
      outcomes
          .get(i)
          .whenComplete(
              (o, x) -> call.ended(e, x == null ? o : MirrorOutcome.failed(Causes.root(x), 0)));
    }
  }

  /**
   * One call in flight: its keys still out, whether any of them failed for an error of etcd, and
   * whether etcd refused any for a reason of its own.
   */
  private final class Call<P> {
    private final MirrorLane<P> lane;
    private final Limiter.Listener permit;
    private final long takenAtMs;
    private int pending;
    private MirrorOutcome failure;
    private String failedKey;
    private boolean refused;

    Call(MirrorLane<P> lane, List<MirrorLane.Entry<P>> batch, Limiter.Listener permit, long at) {
      this.lane = lane;
      this.permit = permit;
      this.takenAtMs = at;
      this.pending = batch.size();
    }

    void ended(MirrorLane.Entry<P> e, MirrorOutcome o) {
      boolean settled = o.result().done();
      boolean ofKey = !settled && MirrorFailures.ofKey(o.error());
      MirrorLane.Ending how =
          settled
              ? MirrorLane.Ending.SETTLED
              : ofKey ? MirrorLane.Ending.REFUSED : MirrorLane.Ending.FAILED;
      int refusals = lane.ended(e, how, takenAtMs, clockMs.getAsLong());
      if (ofKey) {
        failures.refused(lane, etcdKey(lane, e.key), refusals, o, clockMs.getAsLong());
      }
      boolean last;
      synchronized (this) {
        refused |= ofKey;
        if (!settled && !ofKey && failure == null) {
          failure = o;
          failedKey = e.key;
        }
        last = --pending == 0;
      }
      if (settled) {
        keysWritten.incrementAndGet();
      }
      if (!last) {
        return;
      }
      callsInFlight.decrementAndGet();
      if (lane.kind() == RecordKind.TABLE) {
        tableCallsInFlight.decrementAndGet();
      }
      metrics.called(clockMs.getAsLong() - takenAtMs);
      if (failure == null) {
        // etcd answered every key: a key it refused for itself says nothing of its load
        if (refused) {
          permit.onIgnore();
        } else {
          permit.onSuccess();
        }
        failures.succeeded();
      } else {
        if (Causes.any(failure.error(), t -> t instanceof TimeoutException)) {
          permit.onDropped();
        } else {
          permit.onIgnore();
        }
        failures.failed(lane, etcdKey(lane, failedKey), failure, clockMs.getAsLong());
      }
      callEnded();
    }
  }

  /** The etcd key of {@code key} of {@code lane}, as an operator looks it up (or grants it). */
  private String etcdKey(MirrorLane<?> lane, String key) {
    if (etcd == null) {
      return key;
    }
    EtcdLayout layout = etcd.layout();
    return lane.kind() == RecordKind.TABLE ? layout.tableKey(key) : layout.shardKey(key);
  }

  /** Stops the thread; calls in flight end on their own, their keys stay dirty in their tasks. */
  @Override
  public void close() {
    closed = true;
    LockSupport.unpark(thread);
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (MirrorLane<?> l : lanes) {
      remove(l);
    }
  }
}
