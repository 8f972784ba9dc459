package io.demandfold.client;

import io.demandfold.core.Causes;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The view's etcd watch and the bounded queue between it and the view's thread. jetcd calls the
 * listener on its own threads; the listener turns each response into a {@link Signal} and never
 * blocks: a response that finds the queue full is dropped with every later one of that watch, and
 * the watch is marked {@link #overflowed()}, to be restarted from the first revision not applied.
 * Each watch has a generation; signals of an older watch are ignored by the thread.
 *
 * <p>The watch asks for a created notice (so that a working watch says so at once), progress
 * notices, and a leader ({@code requireLeader}: a member cut off from its peers ends the watch
 * instead of holding it silently). The view restarts a failed watch itself, from the revision after
 * the last one it applied, rather than leaving it to jetcd, which resumes from the revision of the
 * last progress notice and gives up on a watch that lost its leader.
 */
final class ViewWatch implements AutoCloseable {
  /** What the watch said. */
  sealed interface Signal permits Responded, Failed, Ended {
    long generation();
  }

  /**
   * A response: its events (none for a created or progress notice), etcd's revision when it sent
   * it, and whether it is a progress notice (everything through {@code header} has been sent).
   */
  record Responded(long generation, List<ViewEvent> events, long header, boolean progress)
      implements Signal {}

  /** The watch failed; {@code resync} when its start revision is compacted or ahead of etcd. */
  record Failed(long generation, Throwable error, boolean resync) implements Signal {}

  /** The watch ended without an error. */
  record Ended(long generation) implements Signal {}

  private final Watch client;
  private final ByteSequence from;
  private final ByteSequence to;
  private final BlockingQueue<Signal> queue;
  private volatile long generation;
  private volatile long overflowed = -1;
  private volatile long lastHeardNanos = System.nanoTime();
  private Watch.Watcher watcher;

  /**
   * A watch of the keys in {@code [fromKey, toKey)}.
   *
   * @param capacity the most responses waiting for the view's thread
   */
  ViewWatch(Watch client, byte[] fromKey, byte[] toKey, int capacity) {
    this.client = client;
    this.from = ByteSequence.from(fromKey);
    this.to = ByteSequence.from(toKey);
    this.queue = new ArrayBlockingQueue<>(capacity);
  }

  /** Starts a new watch from {@code revision}, ending the former one. */
  synchronized void start(long revision) {
    long gen = ++generation;
    closeWatcher();
    lastHeardNanos = System.nanoTime();
    WatchOption option =
        WatchOption.builder()
            .withRange(to)
            .withRevision(revision)
            .withRequireLeader(true)
            .withProgressNotify(true)
            .withCreateNotify(true)
            .build();
    watcher = client.watch(from, option, listener(gen));
  }

  private Watch.Listener listener(long gen) {
    return new Watch.Listener() {
      @Override
      public void onNext(WatchResponse r) {
        if (gen != generation || overflowed == gen) {
          return;
        }
        lastHeardNanos = System.nanoTime();
        List<ViewEvent> events = new ArrayList<>(r.getEvents().size());
        for (WatchEvent e : r.getEvents()) {
          KeyValue kv = e.getKeyValue();
          boolean deleted = e.getEventType() == WatchEvent.EventType.DELETE;
          events.add(
              new ViewEvent(
                  kv.getKey().toString(StandardCharsets.UTF_8),
                  deleted ? null : kv.getValue().getBytes(),
                  kv.getModRevision()));
        }
        boolean progress = events.isEmpty() && r.isProgressNotify();
        offer(gen, new Responded(gen, events, r.getHeader().getRevision(), progress));
      }

      @Override
      public void onError(Throwable t) {
        offer(gen, new Failed(gen, t, isCompacted(t) || isFutureRevision(t)));
      }

      @Override
      public void onCompleted() {
        offer(gen, new Ended(gen));
      }
    };
  }

  private void offer(long gen, Signal s) {
    if (gen != generation || overflowed == gen) {
      return;
    }
    if (!queue.offer(s)) {
      overflowed = gen;
    }
  }

  /** The next signal, waiting up to {@code millis}; {@code null} if none came. */
  Signal poll(long millis) throws InterruptedException {
    return queue.poll(millis, TimeUnit.MILLISECONDS);
  }

  /** The current watch's generation. */
  long generation() {
    return generation;
  }

  /** Whether the current watch dropped a response and every signal it queued has been taken. */
  boolean overflowed() {
    return overflowed == generation && queue.isEmpty();
  }

  /** Nanoseconds since the current watch last said anything (a created or progress notice too). */
  long silentNanos() {
    return System.nanoTime() - lastHeardNanos;
  }

  /** Asks etcd for the current watch's progress: an idle watch then still answers. */
  synchronized void requestProgress() {
    if (watcher != null) {
      watcher.requestProgress();
    }
  }

  /** Whether etcd compacted away the revision asked for. */
  static boolean isCompacted(Throwable e) {
    return Causes.any(e, t -> t instanceof CompactedException)
        || Causes.anyMessageContains(e, "revision has been compacted");
  }

  /** Whether the revision asked for is ahead of etcd (a cluster restored from an older backup). */
  static boolean isFutureRevision(Throwable e) {
    return Causes.anyMessageContains(e, "is a future revision");
  }

  private void closeWatcher() {
    if (watcher != null) {
      watcher.close();
      watcher = null;
    }
  }

  /**
   * Ends the current watch until the next {@link #start}: its signals are ignored from now on, and
   * jetcd's own resumption of it (half a second after a failure) never starts.
   */
  synchronized void suspend() {
    generation++;
    closeWatcher();
  }

  /** Ends the watch; its signals are ignored from now on. */
  @Override
  public synchronized void close() {
    suspend();
    queue.clear();
  }
}
