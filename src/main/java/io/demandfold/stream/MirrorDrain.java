package io.demandfold.stream;

import io.demandfold.mirror.MirrorOutcome;
import io.demandfold.mirror.MirrorResult;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drains an {@link Outbox} into etcd with bounded concurrency. Called only from the stream thread
 * (at each punctuation): it applies the completions collected since the last call (jetcd completes
 * on its own threads, which only enqueue), then starts mirror calls for dirty keys up to the bound.
 * Consecutive failures back off exponentially up to 5 s; the stream thread never waits.
 */
final class MirrorDrain {
  private static final Logger log = LoggerFactory.getLogger(MirrorDrain.class);
  private static final long MAX_BACKOFF_MS = 5_000;
  private static final long FAILURE_LOG_INTERVAL_MS = 30_000;

  private final String name;
  private final Outbox outbox;
  private final int concurrency;
  private final Function<String, CompletableFuture<MirrorOutcome>> mirror;
  private final Queue<Completion> completions = new ConcurrentLinkedQueue<>();
  private volatile boolean closed;
  private int inFlight;
  private int consecutiveFailures;
  private long pausedUntilMs;
  private long failuresSinceLog;
  private long lastFailureLogMs = Long.MIN_VALUE;

  private record Completion(String key, int changesAtStart, MirrorOutcome outcome) {}

  /**
   * @param name what is drained, for logs (e.g. "shard records of task 0_1")
   * @param mirror starts the read-join-CAS of one key; called on the stream thread
   */
  MirrorDrain(
      String name,
      Outbox outbox,
      int concurrency,
      Function<String, CompletableFuture<MirrorOutcome>> mirror) {
    this.name = name;
    this.outbox = outbox;
    this.concurrency = concurrency;
    this.mirror = mirror;
  }

  /** Applies finished calls, then starts new ones. */
  void tick(long nowMs) {
    Completion c;
    while ((c = completions.poll()) != null) {
      inFlight--;
      boolean settled = c.outcome.result().done();
      outbox.mirrored(c.key, c.changesAtStart, settled);
      if (settled) {
        consecutiveFailures = 0;
      } else {
        failed(c.key, c.outcome, nowMs);
      }
    }
    if (nowMs < pausedUntilMs) {
      return;
    }
    int free = concurrency - inFlight;
    if (free <= 0) {
      return;
    }
    for (String key : outbox.takeForMirror(free)) {
      int changes = outbox.changes(key);
      inFlight++;
      CompletableFuture<MirrorOutcome> f;
      try {
        f = mirror.apply(key);
      } catch (RuntimeException e) {
        f = CompletableFuture.completedFuture(new MirrorOutcome(MirrorResult.FAILED, 0, false, e));
      }
      f.whenComplete(
          (o, e) -> {
            if (!closed) {
              MirrorOutcome out =
                  e == null ? o : new MirrorOutcome(MirrorResult.FAILED, 0, false, e);
              completions.add(new Completion(key, changes, out));
            }
          });
    }
  }

  private void failed(String key, MirrorOutcome o, long nowMs) {
    consecutiveFailures++;
    long backoff = Math.min(MAX_BACKOFF_MS, 50L << Math.min(consecutiveFailures, 10));
    pausedUntilMs = nowMs + backoff;
    failuresSinceLog++;
    if (nowMs - lastFailureLogMs >= FAILURE_LOG_INTERVAL_MS) {
      log.warn(
          "mirroring {} into etcd failed {} time(s) since the last report; {} stays dirty and is"
              + " retried (last error on {}: {})",
          name,
          failuresSinceLog,
          outbox.size() == 1 ? "1 key" : outbox.size() + " keys",
          key,
          o.error() == null ? o.result().label() : o.error().toString());
      lastFailureLogMs = nowMs;
      failuresSinceLog = 0;
    }
  }

  int inFlight() {
    return inFlight;
  }

  /** Stops accepting completions; keys still out stay dirty in the changelog. */
  void close() {
    closed = true;
  }
}
