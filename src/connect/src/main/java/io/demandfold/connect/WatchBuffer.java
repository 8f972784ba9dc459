package io.demandfold.connect;

import io.demandfold.core.EnumNames;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The bounded queue between a watch (jetcd calls its listener on its own threads) and {@code
 * poll()}. The listener never blocks: a response that does not fit is dropped, the watch is marked
 * for a restart from the first revision not taken, and {@code poll()} restarts it once the queue is
 * drained. A response is taken whole, so the events of one revision (etcd never splits one across
 * responses) are never split.
 *
 * <p>A watch that fails (other than for compaction or a future revision) is restarted too: jetcd
 * itself gives up on a watch that etcd ended for want of a leader (the watch requires one) and on
 * halting errors, and only calls the listener's {@code onError}. A watch from which nothing came,
 * no event and no progress answer, for longer than the stall limit is deemed stalled and restarted
 * as well: a watch held by a member cut off from its peers, or by a stopped process, says nothing.
 *
 * <p>Each watch gets a generation; callbacks of an older watch are ignored.
 */
final class WatchBuffer {
  /** A drained event and the revision through which everything has been delivered with it. */
  record Taken(WatchEvent event, long through) {}

  /**
   * What one {@link #drain} found.
   *
   * @param failure the watch's terminal failure (compaction, future revision), once the queue is
   *     empty
   * @param restartFrom when the queue is empty and the watch dropped a response or ended: the
   *     revision to watch from; else 0
   * @param error the last transient error since the previous drain, or {@code null}
   * @param restart why the watch is to restart from {@code restartFrom}, or {@code null}
   */
  record Drained(
      List<Taken> taken, Throwable failure, long restartFrom, Throwable error, Restart restart) {}

  /** Why a watch is restarted; {@link #label()} is the metric label. */
  enum Restart {
    /** A response did not fit in the queue and was dropped. */
    OVERFLOW,
    /** etcd or jetcd ended the watch. */
    ENDED,
    /** The watch failed: etcd unreachable, no leader, a halting error. */
    FAILED,
    /** Nothing came, not even a progress answer, within the stall limit. */
    STALLED;

    private final String label = EnumNames.of(this);

    String label() {
      return label;
    }
  }

  private final int capacity;
  private final ArrayDeque<WatchEvent> events = new ArrayDeque<>();
  private long generation;
  private long lastTaken;
  private boolean dropped;
  private boolean ended;
  private boolean broken;
  private long lastHeardNanos;
  private Throwable failure;
  private Throwable error;

  WatchBuffer(int capacity) {
    this.capacity = capacity;
  }

  /** Begins a new watch from {@code fromRevision}; returns its listener. */
  synchronized Watch.Listener begin(long fromRevision) {
    long gen = ++generation;
    lastTaken = fromRevision - 1;
    dropped = false;
    ended = false;
    broken = false;
    failure = null;
    lastHeardNanos = System.nanoTime();
    return new Watch.Listener() {
      @Override
      public void onNext(WatchResponse response) {
        offer(gen, response);
      }

      @Override
      public void onError(Throwable t) {
        failed(gen, t);
      }

      @Override
      public void onCompleted() {
        completed(gen);
      }
    };
  }

  /** Forgets every queued event and ignores the current watch (before a fresh snapshot). */
  synchronized void reset() {
    generation++;
    events.clear();
    failure = null;
    error = null;
  }

  private synchronized void offer(long gen, WatchResponse response) {
    if (gen != generation || dropped) {
      return;
    }
    lastHeardNanos = System.nanoTime(); // progress answers count: the watch is alive
    List<WatchEvent> evs = response.getEvents();
    if (evs.isEmpty()) {
      return;
    }
    if (!events.isEmpty() && events.size() + evs.size() > capacity) {
      dropped = true;
    } else {
      events.addAll(evs);
      lastTaken = evs.get(evs.size() - 1).getKeyValue().getModRevision();
    }
    notifyAll();
  }

  private synchronized void failed(long gen, Throwable t) {
    if (gen != generation) {
      return;
    }
    if (EtcdFailures.isCompacted(t) || EtcdFailures.isFutureRevision(t)) {
      failure = t;
    } else {
      error = t;
      broken = true;
    }
    notifyAll();
  }

  private synchronized void completed(long gen) {
    if (gen == generation) {
      ended = true;
      notifyAll();
    }
  }

  /**
   * Takes up to {@code max} events, waiting up to {@code timeoutMs} for the first one or for a
   * state change; a watch is never deemed stalled.
   */
  synchronized Drained drain(int max, long timeoutMs) throws InterruptedException {
    return drain(max, timeoutMs, Long.MAX_VALUE);
  }

  /**
   * Takes up to {@code max} events, waiting up to {@code timeoutMs} for the first one or for a
   * state change; a watch from which nothing came for {@code stallMs} is to restart.
   */
  synchronized Drained drain(int max, long timeoutMs, long stallMs) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutMs * 1_000_000;
    while (events.isEmpty() && failure == null && !dropped && !ended && !broken) {
      long left = (deadline - System.nanoTime()) / 1_000_000;
      if (left <= 0) {
        break;
      }
      wait(left);
    }
    List<Taken> taken = new ArrayList<>();
    while (!events.isEmpty() && taken.size() < max) {
      WatchEvent e = events.poll();
      long rev = e.getKeyValue().getModRevision();
      WatchEvent next = events.peek();
      boolean revisionComplete = next == null || next.getKeyValue().getModRevision() != rev;
      taken.add(new Taken(e, revisionComplete ? rev : rev - 1));
    }
    Throwable err = error;
    error = null;
    boolean empty = events.isEmpty();
    Restart restart = null;
    if (empty && failure == null) {
      if (dropped) {
        restart = Restart.OVERFLOW;
      } else if (broken) {
        restart = Restart.FAILED;
      } else if (ended) {
        restart = Restart.ENDED;
      } else if ((System.nanoTime() - lastHeardNanos) / 1_000_000 > stallMs) {
        restart = Restart.STALLED;
      }
    }
    return new Drained(
        taken, empty ? failure : null, restart != null ? lastTaken + 1 : 0, err, restart);
  }
}
