package io.demandfold.connect;

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
   */
  record Drained(List<Taken> taken, Throwable failure, long restartFrom, Throwable error) {}

  private final int capacity;
  private final ArrayDeque<WatchEvent> events = new ArrayDeque<>();
  private long generation;
  private long lastTaken;
  private boolean dropped;
  private boolean ended;
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
    failure = null;
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
   * state change.
   */
  synchronized Drained drain(int max, long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutMs * 1_000_000;
    while (events.isEmpty() && failure == null && !dropped && !ended) {
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
    return new Drained(
        taken,
        empty ? failure : null,
        empty && failure == null && (dropped || ended) ? lastTaken + 1 : 0,
        err);
  }
}
