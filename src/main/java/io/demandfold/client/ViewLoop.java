package io.demandfold.client;

import io.demandfold.client.ViewMeters.Restart;
import io.demandfold.client.ViewWatch.Ended;
import io.demandfold.client.ViewWatch.Failed;
import io.demandfold.client.ViewWatch.Responded;
import io.demandfold.client.ViewWatch.Signal;
import io.demandfold.core.Causes;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The view's one thread: takes what the watch said, applies it to the {@link ViewState} and tells
 * the listeners, in revision order. It asks the watch for its progress every progress interval,
 * restarts a watch that failed, ended, overflowed or said nothing for {@value #STALL_INTERVALS}
 * intervals from the revision after the last one applied (a failed one after a back-off of 0.5 s
 * doubling up to 5 s), and loads a fresh snapshot when the watch's start revision is compacted.
 */
final class ViewLoop implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(ViewLoop.class);

  /** Progress intervals without a word from the watch after which it is deemed stalled. */
  static final int STALL_INTERVALS = 3;

  private static final long MIN_BACKOFF_MS = 500;
  private static final long MAX_BACKOFF_MS = 5000;

  /** What waits to be done. */
  private enum Pending {
    NONE,
    RESTART,
    RESYNC
  }

  private final ViewState state;
  private final ViewWatch watch;
  private final ViewSnapshot snapshot;
  private final ViewMeters meters;
  private final List<DemandListener> listeners;
  private final long progressNanos;
  private final LongSupplier clockMs;
  private final String what;
  private volatile boolean stopping;
  private volatile long heard;
  private volatile DemandView.Status status;
  private Pending pending = Pending.NONE;
  private Restart restartReason;
  private long pendingAtNanos;
  private long backoffMs = MIN_BACKOFF_MS;
  private long lastProgressNanos = System.nanoTime();

  ViewLoop(
      ViewState state,
      ViewWatch watch,
      ViewSnapshot snapshot,
      MeterRegistry registry,
      String prefix,
      CopyOnWriteArrayList<DemandListener> listeners,
      long progressMs,
      LongSupplier clockMs,
      String what) {
    this.state = state;
    this.watch = watch;
    this.snapshot = snapshot;
    this.meters = new ViewMeters(registry, prefix, state, () -> heard);
    this.listeners = listeners;
    this.progressNanos = progressMs * 1_000_000;
    this.clockMs = clockMs;
    this.what = what;
    this.heard = state.revision();
    this.status = new DemandView.Status(false, clockMs.getAsLong(), "the watch is starting");
  }

  /** Starts the watch after the snapshot the state holds; call before running the thread. */
  void begin() {
    watch.start(state.applied() + 1);
  }

  ViewMeters meters() {
    return meters;
  }

  DemandView.Status status() {
    return status;
  }

  /** The newest etcd revision the watch heard of. */
  long heard() {
    return heard;
  }

  void stop() {
    stopping = true;
  }

  @Override
  public void run() {
    while (!stopping) {
      try {
        Signal s = watch.poll(Math.max(1, Math.min(100, progressNanos / 1_000_000)));
        if (s != null && s.generation() == watch.generation()) {
          handle(s);
        }
        tick();
      } catch (InterruptedException e) {
        if (stopping) {
          return;
        }
      } catch (RuntimeException e) {
        // never end the thread: log, and start over from the last revision applied
        log.warn("view of {}: unexpected failure; restarting its watch", what, e);
        down("unexpected failure: " + e);
        watch.suspend();
        schedule(Pending.RESTART, Restart.FAILED);
      }
    }
  }

  private void handle(Signal s) {
    if (s instanceof Responded r) {
      heard = Math.max(heard, r.header());
      live();
      if (!r.events().isEmpty()) {
        dispatch(state.apply(r.events()));
      } else if (r.progress()) {
        state.confirm(r.header());
      }
    } else if (s instanceof Failed f) {
      watch.suspend();
      if (f.resync()) {
        log.info(
            "view of {}: the watch cannot resume after revision {} ({}); loading a fresh snapshot",
            what,
            state.applied(),
            f.error().getMessage());
        pending = Pending.RESYNC;
        pendingAtNanos = System.nanoTime();
      } else {
        down(message(f.error()));
        log.debug("view of {}: the watch failed: {}", what, f.error().toString());
        schedule(Pending.RESTART, Restart.FAILED);
      }
    } else if (s instanceof Ended) {
      down("etcd ended the watch");
      watch.suspend();
      schedule(Pending.RESTART, Restart.ENDED);
    }
  }

  private void tick() {
    long now = System.nanoTime();
    if (pending != Pending.NONE) {
      if (now - pendingAtNanos >= 0) {
        Pending p = pending;
        pending = Pending.NONE;
        if (p == Pending.RESYNC) {
          resync();
        } else {
          restart(restartReason);
        }
      }
      return;
    }
    if (watch.overflowed()) {
      restart(Restart.OVERFLOW);
      return;
    }
    if (watch.silentNanos() > STALL_INTERVALS * progressNanos) {
      down("no answer from etcd for " + STALL_INTERVALS * progressNanos / 1_000_000 + " ms");
      log.debug("view of {}: the watch stalled; restarting it", what);
      watch.suspend();
      restart(Restart.STALLED);
      return;
    }
    if (now - lastProgressNanos >= progressNanos) {
      lastProgressNanos = now;
      watch.requestProgress();
    }
  }

  private void schedule(Pending p, Restart reason) {
    pending = p;
    restartReason = reason;
    pendingAtNanos = System.nanoTime() + backoffMs * 1_000_000;
    backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
  }

  private void restart(Restart reason) {
    meters.restarted(reason);
    lastProgressNanos = System.nanoTime();
    watch.start(state.applied() + 1);
  }

  private void resync() {
    ViewSnapshot.Loaded loaded;
    try {
      loaded = snapshot.load();
    } catch (ExecutionException | TimeoutException e) {
      down("cannot load a fresh snapshot: " + message(e));
      pending = Pending.RESYNC;
      pendingAtNanos = System.nanoTime() + backoffMs * 1_000_000;
      backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    List<TableChange> changes = state.replace(loaded.revision(), loaded.kvs());
    heard = Math.max(heard, loaded.revision());
    meters.resynced();
    log.info(
        "view of {}: fresh snapshot at revision {} ({} keys, {} tables changed)",
        what,
        loaded.revision(),
        loaded.kvs().size(),
        changes.size());
    dispatch(changes);
    for (DemandListener l : listeners) {
      try {
        l.resynced(loaded.revision());
      } catch (RuntimeException e) {
        log.warn("view of {}: listener {} failed on a resync", what, l, e);
      }
    }
    lastProgressNanos = System.nanoTime();
    watch.start(loaded.revision() + 1);
  }

  private void dispatch(List<TableChange> changes) {
    for (TableChange c : changes) {
      for (DemandListener l : listeners) {
        try {
          l.changed(c);
        } catch (RuntimeException e) {
          log.warn("view of {}: listener {} failed on a change of {}", what, l, c.target(), e);
        }
      }
    }
  }

  private void live() {
    if (!status.live()) {
      status = new DemandView.Status(true, clockMs.getAsLong(), null);
    }
    backoffMs = MIN_BACKOFF_MS;
  }

  private void down(String problem) {
    DemandView.Status s = status;
    status = new DemandView.Status(false, s.live() ? clockMs.getAsLong() : s.sinceMs(), problem);
  }

  private static String message(Throwable e) {
    Throwable root = Causes.root(e);
    return root.getMessage() == null ? root.toString() : root.getMessage();
  }
}
