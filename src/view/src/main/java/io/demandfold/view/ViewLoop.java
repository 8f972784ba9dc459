package io.demandfold.view;

import io.demandfold.core.Causes;
import io.demandfold.core.EnumNames;
import io.demandfold.view.ViewMeters.Restart;
import io.demandfold.view.ViewMeters.Resync;
import io.demandfold.view.ViewWatch.Ended;
import io.demandfold.view.ViewWatch.Failed;
import io.demandfold.view.ViewWatch.Responded;
import io.demandfold.view.ViewWatch.Signal;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The view's one thread: takes what the watch said, applies it to the {@link ViewState} and tells
 * the listeners, in revision order. It asks the watch for its progress every progress interval,
 * restarts a watch that failed, ended or said nothing for {@value #STALL_INTERVALS} intervals from
 * the revision after the last one applied (a failed one after a back-off of 0.5 s doubling up to 5
 * s), and loads a fresh snapshot when the watch cannot go on: its start revision compacted, a
 * backlog the watch or the queue cannot take, or etcd gone back ({@link ViewRewinds}: an answer of
 * the watch below what etcd had shown, confirmed by a linearizable read). An error of its own ends
 * it, said so by the status, a meter and the log; never silently.
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
  private final ViewListeners listeners;
  private final ViewRewinds rewinds = new ViewRewinds();
  private final long progressNanos;
  private final LongSupplier clockMs;
  private final String what;
  private volatile boolean stopping;
  private volatile boolean failed;
  private volatile DemandView.Status status;
  private Pending pending = Pending.NONE;
  private Restart restartReason;
  private Resync resyncReason;
  private long pendingAtNanos;
  private long backoffMs = MIN_BACKOFF_MS;
  private long lastProgressNanos = System.nanoTime();

  /**
   * @param what the etcd prefix, for the meters and the log
   */
  ViewLoop(
      ViewState state,
      ViewWatch watch,
      ViewSnapshot snapshot,
      MeterRegistry registry,
      List<DemandListener> listeners,
      long progressMs,
      LongSupplier clockMs,
      String what) {
    this.state = state;
    this.watch = watch;
    this.snapshot = snapshot;
    this.meters =
        new ViewMeters(registry, what, state, watch::heard, watch::queuedBytes, () -> failed);
    this.listeners = new ViewListeners(listeners, meters, what);
    this.progressNanos = progressMs * 1_000_000;
    this.clockMs = clockMs;
    this.what = what;
    this.status = new DemandView.Status(false, clockMs.getAsLong(), "the watch is starting");
  }

  /**
   * Starts the watch after {@code loaded}, the snapshot the state holds; call before running the
   * thread.
   */
  void begin(ViewSnapshot.Loaded loaded) {
    rewinds.reset(loaded.clusterId(), loaded.revision());
    watch.heard(loaded.revision());
    watch.start(loaded.revision() + 1);
    log.info(
        "view of {}: {} table records at revision {} ({} keys in {} pages); watching",
        what,
        state.tableCount(),
        loaded.revision(),
        loaded.kvs().size(),
        loaded.pages());
  }

  ViewMeters meters() {
    return meters;
  }

  DemandView.Status status() {
    return status;
  }

  void stop() {
    stopping = true;
  }

  @Override
  public void run() {
    try {
      loop();
    } catch (Throwable e) { // an Error of the view's own: say so, never freeze silently
      fail(e);
    }
  }

  private void loop() {
    while (!stopping) {
      try {
        Signal s = watch.poll(Math.max(1, Math.min(100, progressNanos / 1_000_000)));
        if (watch.overflowed()) {
          log.info(
              "view of {}: more watch responses came than the queue to the view's thread holds"
                  + " (a listener slower than etcd's writes); loading a fresh snapshot",
              what);
          watch.suspend();
          scheduleResync(Resync.BACKLOG);
        } else if (s != null && s.generation() == watch.generation()) {
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

  private void handle(Signal s) throws InterruptedException {
    if (s instanceof Responded r) {
      if (rewinds.suspect(r.clusterId(), r.header()) && wentBack()) {
        return;
      }
      live();
      if (!r.events().isEmpty()) {
        listeners.changed(state.apply(r.events()));
      } else if (r.progress()) {
        state.confirm(r.header());
      }
    } else if (s instanceof Failed f) {
      watch.suspend();
      switch (f.failure()) {
        case COMPACTED -> {
          log.info(
              "view of {}: the watch cannot resume after revision {} ({}); loading a fresh"
                  + " snapshot",
              what,
              state.applied(),
              f.error().getMessage());
          scheduleResync(Resync.COMPACTED);
        }
        case BACKLOG -> {
          log.info(
              "view of {}: the watch's backlog after revision {} is more than its client takes"
                  + " in one message ({}); loading a fresh snapshot",
              what,
              state.applied(),
              message(f.error()));
          scheduleResync(Resync.BACKLOG);
        }
        case FUTURE_REVISION -> {
          if (!wentBack()) {
            down(message(f.error()));
            schedule(Pending.RESTART, Restart.FAILED);
          }
        }
        default -> {
          down(message(f.error()));
          log.debug("view of {}: the watch failed: {}", what, f.error().toString());
          schedule(Pending.RESTART, Restart.FAILED);
        }
      }
    } else if (s instanceof Ended) {
      down("etcd ended the watch");
      watch.suspend();
      schedule(Pending.RESTART, Restart.ENDED);
    }
  }

  /**
   * The watch answered from another cluster or below a revision etcd had shown: asks etcd with a
   * linearizable read whether it went back (a lagging member did not).
   *
   * @return whether the answer is to be dropped: etcd went back (a resync is scheduled) or could
   *     not be asked (the watch restarts later)
   */
  private boolean wentBack() throws InterruptedException {
    long floor = rewinds.floor();
    ViewSnapshot.Probe p;
    try {
      p = snapshot.probe();
    } catch (ExecutionException | TimeoutException e) {
      down("cannot read etcd's revision: " + message(e));
      watch.suspend();
      schedule(Pending.RESTART, Restart.FAILED);
      return true;
    }
    ViewRewinds.Rewind lost = rewinds.check(floor, p.clusterId(), p.revision());
    if (lost == null) {
      log.debug("view of {}: a watch answer below revision {}; etcd is at {}", what, floor, p);
      return false;
    }
    log.warn("view of {}: etcd lost writes: {}; loading a fresh snapshot", what, lost.describe());
    watch.suspend();
    scheduleResync(Resync.ETCD_REWOUND);
    return true;
  }

  private void tick() {
    long now = System.nanoTime();
    if (pending != Pending.NONE) {
      if (now - pendingAtNanos >= 0) {
        Pending p = pending;
        pending = Pending.NONE;
        if (p == Pending.RESYNC) {
          resync(resyncReason);
        } else {
          restart(restartReason);
        }
      }
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

  /** A fresh snapshot at once; a reason already pending (etcd went back) is kept. */
  private void scheduleResync(Resync reason) {
    if (pending != Pending.RESYNC || resyncReason != Resync.ETCD_REWOUND) {
      resyncReason = reason;
    }
    pending = Pending.RESYNC;
    pendingAtNanos = System.nanoTime();
  }

  private void restart(Restart reason) {
    meters.restarted(reason);
    lastProgressNanos = System.nanoTime();
    watch.start(state.applied() + 1);
  }

  private void resync(Resync reason) {
    long floor = rewinds.floor();
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
      Thread.currentThread().interrupt(); // closing, or to be tried again
      pending = Pending.RESYNC;
      return;
    }
    ViewRewinds.Rewind lost = rewinds.check(floor, loaded.clusterId(), loaded.revision());
    if (lost != null && reason != Resync.ETCD_REWOUND) {
      log.warn("view of {}: etcd lost writes: {}", what, lost.describe());
      reason = Resync.ETCD_REWOUND;
    }
    rewinds.reset(loaded.clusterId(), loaded.revision());
    List<TableChange> changes = state.replace(loaded.revision(), loaded.kvs());
    watch.heard(loaded.revision());
    meters.resynced(reason);
    log.info(
        "view of {}: fresh snapshot at revision {} ({} keys, {} tables changed; {})",
        what,
        loaded.revision(),
        loaded.kvs().size(),
        changes.size(),
        EnumNames.of(reason));
    listeners.changed(changes);
    listeners.resynced(loaded.revision());
    if (stopping) {
      return; // closed by a listener: open nothing
    }
    lastProgressNanos = System.nanoTime();
    watch.start(loaded.revision() + 1);
  }

  /**
   * The thread ends on an error of its own: the watch is closed, then the log, a meter and the
   * status say so (the status last: whoever sees it sees the rest done).
   */
  private void fail(Throwable e) {
    try {
      watch.suspend();
    } finally {
      log.error(
          "view of {}: failed: its thread ended on an error; it follows etcd no more (close it"
              + " and start a new one)",
          what,
          e);
      failed = true;
      long now;
      try {
        now = clockMs.getAsLong();
      } catch (Throwable clockFailed) { // the clock may be what failed
        now = System.currentTimeMillis();
      }
      status =
          new DemandView.Status(
              false,
              now,
              "failed: the view's thread ended on "
                  + e
                  + "; the view follows etcd no more: close it and start a new one");
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
