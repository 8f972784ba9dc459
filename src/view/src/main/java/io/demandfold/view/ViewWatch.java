package io.demandfold.view;

import io.demandfold.core.Causes;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The view's etcd watch and the queue between it and the view's thread, bounded in bytes. jetcd
 * calls the listener on its own threads; the listener turns each response into a {@link Signal} and
 * never blocks: a response that would take the queue over its bytes (an empty queue takes any one
 * response) drops what waits and every later response of that watch, and marks the watch {@link
 * #overflowed()}: the view then loads a fresh snapshot rather than have etcd send the same backlog
 * again. Each watch has a generation; signals of an older watch are ignored by the thread.
 *
 * <p>The watch asks for a created notice (so that a working watch says so at once), progress
 * notices, and a leader ({@code requireLeader}: a member cut off from its peers ends the watch
 * instead of holding it silently). The view restarts a failed watch itself, from the revision after
 * the last one it applied, rather than leaving it to jetcd, which resumes from the revision of the
 * last progress notice and gives up on a watch that lost its leader. A closed watch opens nothing.
 */
final class ViewWatch implements AutoCloseable {
  /** The bytes a signal is counted for besides its keys and values. */
  static final long SIGNAL_BYTES = 64;

  /** What the watch said. */
  sealed interface Signal permits Responded, Failed, Ended {
    long generation();
  }

  /**
   * A response: its events (none for a created or progress notice), etcd's revision and cluster id
   * when it sent it, whether it is a progress notice (everything through {@code header} has been
   * sent), and the bytes it is counted for in the queue.
   */
  record Responded(
      long generation,
      List<ViewEvent> events,
      long header,
      long clusterId,
      boolean progress,
      long bytes)
      implements Signal {}

  /** Why a watch failed, as far as the view is concerned. */
  enum Failure {
    /** Anything to retry: etcd unreachable, no leader, a halting error. */
    RETRY,
    /** etcd compacted the start revision away. */
    COMPACTED,
    /**
     * A response was over the client's inbound message limit (gRPC's RESOURCE_EXHAUSTED): the
     * backlog since the start revision, which etcd would send in one response again.
     */
    BACKLOG,
    /** The start revision is ahead of etcd (newer etcd refuses it; 3.4 waits silently). */
    FUTURE_REVISION
  }

  /** The watch failed. */
  record Failed(long generation, Throwable error, Failure failure) implements Signal {}

  /** The watch ended without an error. */
  record Ended(long generation) implements Signal {}

  private final Watch client;
  private final ByteSequence from;
  private final ByteSequence to;
  private final long maxBytes;
  private final LinkedBlockingQueue<Signal> queue = new LinkedBlockingQueue<>();
  private final AtomicLong queuedBytes = new AtomicLong();
  private final AtomicLong heard = new AtomicLong();
  private volatile long generation;
  private volatile long overflowed = -1;
  private volatile long lastHeardNanos = System.nanoTime();
  private Watch.Watcher watcher;
  private boolean closed;

  /**
   * A watch of the keys in {@code [fromKey, toKey)}.
   *
   * @param maxBytes the most bytes of signals waiting for the view's thread
   */
  ViewWatch(Watch client, byte[] fromKey, byte[] toKey, long maxBytes) {
    this.client = client;
    this.from = ByteSequence.from(fromKey);
    this.to = ByteSequence.from(toKey);
    this.maxBytes = maxBytes;
  }

  /** Starts a new watch from {@code revision}, ending the former one; nothing once closed. */
  synchronized void start(long revision) {
    if (closed) {
      return;
    }
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
        if (gen != generation) {
          return;
        }
        lastHeardNanos = System.nanoTime();
        long header = r.getHeader().getRevision();
        if (overflowed != gen) {
          List<ViewEvent> events = new ArrayList<>(r.getEvents().size());
          long bytes = SIGNAL_BYTES;
          for (WatchEvent e : r.getEvents()) {
            KeyValue kv = e.getKeyValue();
            boolean deleted = e.getEventType() == WatchEvent.EventType.DELETE;
            events.add(
                new ViewEvent(
                    kv.getKey().toString(StandardCharsets.UTF_8),
                    deleted ? null : kv.getValue().getBytes(),
                    kv.getModRevision()));
            bytes += SIGNAL_BYTES + kv.getKey().size() + (deleted ? 0 : kv.getValue().size());
          }
          boolean progress = events.isEmpty() && r.isProgressNotify();
          offer(
              gen,
              new Responded(gen, events, header, r.getHeader().getClusterId(), progress, bytes));
        }
        // heard after it is queued (or dropped): all up to this revision has been offered
        heard.accumulateAndGet(header, Math::max);
      }

      @Override
      public void onError(Throwable t) {
        offer(gen, new Failed(gen, t, failure(t)));
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
    long size = bytes(s);
    if (!queue.isEmpty() && queuedBytes.get() + size > maxBytes) {
      overflowed = gen;
      drop(); // what waits is of no use now: free it at once
      return;
    }
    queuedBytes.addAndGet(size);
    queue.add(s);
  }

  private static long bytes(Signal s) {
    return s instanceof Responded r ? r.bytes() : SIGNAL_BYTES;
  }

  /** Empties the queue; a signal is counted out by whoever takes it. */
  private void drop() {
    List<Signal> dropped = new ArrayList<>();
    queue.drainTo(dropped);
    for (Signal s : dropped) {
      queuedBytes.addAndGet(-bytes(s));
    }
  }

  /** The next signal, waiting up to {@code millis}; {@code null} if none came. */
  Signal poll(long millis) throws InterruptedException {
    Signal s = queue.poll(millis, TimeUnit.MILLISECONDS);
    if (s != null) {
      queuedBytes.addAndGet(-bytes(s));
    }
    return s;
  }

  /** The current watch's generation. */
  long generation() {
    return generation;
  }

  /** Whether the current watch had a response the queue could not hold (it then holds none). */
  boolean overflowed() {
    return overflowed == generation;
  }

  /** Bytes of signals waiting for the view's thread. */
  long queuedBytes() {
    return queuedBytes.get();
  }

  /** The highest revision etcd's answers to the watch named, on jetcd's threads, as they came. */
  long heard() {
    return heard.get();
  }

  /** After a fresh snapshot at {@code revision}: the revision heard is that one. */
  void heard(long revision) {
    heard.set(revision);
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

  /** What a failure of the watch means to the view. */
  static Failure failure(Throwable e) {
    if (Causes.any(e, t -> t instanceof CompactedException)
        || Causes.anyMessageContains(e, "revision has been compacted")) {
      return Failure.COMPACTED;
    }
    if (Causes.anyMessageContains(e, "is a future revision")) {
      return Failure.FUTURE_REVISION;
    }
    if (Status.fromThrowable(e).getCode() == Status.Code.RESOURCE_EXHAUSTED
        || Causes.any(
            e,
            t ->
                t instanceof EtcdException x && x.getErrorCode() == ErrorCode.RESOURCE_EXHAUSTED)) {
      return Failure.BACKLOG;
    }
    return Failure.RETRY;
  }

  private void closeWatcher() {
    if (watcher != null) {
      watcher.close();
      watcher = null;
    }
  }

  /**
   * Ends the current watch until the next {@link #start}: its signals are ignored and dropped from
   * now on, and jetcd's own resumption of it (half a second after a failure) never starts.
   */
  synchronized void suspend() {
    generation++;
    closeWatcher();
    drop();
  }

  /** Ends the watch for good: its signals are ignored, and {@link #start} opens nothing. */
  @Override
  public synchronized void close() {
    closed = true;
    suspend();
  }
}
