package io.demandfold.stream;

import io.demandfold.core.Printable;
import io.demandfold.mirror.MirrorOutcome;
import io.demandfold.mirror.MirrorResult;
import io.demandfold.stream.Outbox.Dirty;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mirrors the dirty keys of an {@link Outbox} into etcd with bounded concurrency. Called only from
 * the stream thread (at each punctuation): it applies the completions collected since the last call
 * (jetcd completes on its own threads, which only enqueue), and starts calls of at most {@code
 * batchKeys} keys, at most {@code concurrency} calls in flight. Consecutive failures back off
 * exponentially up to 5 s; the stream thread never waits.
 *
 * @param <R> the outbox's value type
 */
final class MirrorDrain<R> {
  private static final Logger log = LoggerFactory.getLogger(MirrorDrain.class);
  private static final long MAX_BACKOFF_MS = 5_000;
  private static final long FAILURE_LOG_INTERVAL_MS = 30_000;

  private final String name;
  private final Outbox<R> outbox;
  private final int concurrency;
  private final int batchKeys;
  private final Function<List<Dirty<R>>, List<CompletableFuture<MirrorOutcome>>> mirror;
  private final Queue<Completion<R>> completions = new ConcurrentLinkedQueue<>();
  private volatile boolean closed;
  private int callsInFlight;
  private int consecutiveFailures;
  private long pausedUntilMs;
  private long failuresSinceLog;
  private long lastFailureLogMs = Long.MIN_VALUE;

  /** One mirror call: how many of its keys are still out, and the last of them that failed. */
  private static final class Call {
    int pending;
    String failedKey;
    MirrorOutcome failure;

    Call(int keys) {
      this.pending = keys;
    }
  }

  private record Completion<R>(Call call, Dirty<R> key, MirrorOutcome outcome) {}

  /**
   * @param name what is drained, for logs (e.g. "shard records of task 0_1")
   * @param concurrency most mirror calls in flight
   * @param batchKeys most keys per call
   * @param mirror starts the read-join-CAS of up to {@code batchKeys} keys, one outcome per key in
   *     their order; called on the stream thread
   */
  MirrorDrain(
      String name,
      Outbox<R> outbox,
      int concurrency,
      int batchKeys,
      Function<List<Dirty<R>>, List<CompletableFuture<MirrorOutcome>>> mirror) {
    this.name = name;
    this.outbox = outbox;
    this.concurrency = concurrency;
    this.batchKeys = batchKeys;
    this.mirror = mirror;
  }

  /**
   * Applies the keys finished since the last call: settled keys become clean; a call with a failed
   * key counts as one failure, and consecutive failures back off.
   */
  void applyCompletions(long nowMs) {
    Completion<R> c;
    while ((c = completions.poll()) != null) {
      boolean settled = c.outcome.result().done();
      outbox.mirrorCallEnded(c.key, settled);
      if (!settled) {
        c.call.failedKey = c.key.key;
        c.call.failure = c.outcome;
      }
      if (--c.call.pending == 0) {
        callsInFlight--;
        if (c.call.failure == null) {
          consecutiveFailures = 0;
        } else {
          failed(c.call.failedKey, c.call.failure, nowMs);
        }
      }
    }
  }

  /** How many keys may be started now: 0 while backing off or at the bound of calls in flight. */
  int freeKeys(long nowMs) {
    return nowMs < pausedUntilMs ? 0 : Math.max(0, concurrency - callsInFlight) * batchKeys;
  }

  /** Starts calls for {@code keys}, taken from the outbox, {@code batchKeys} keys per call. */
  void start(List<Dirty<R>> keys) {
    for (int from = 0; from < keys.size(); from += batchKeys) {
      call(keys.subList(from, Math.min(keys.size(), from + batchKeys)));
    }
  }

  private void call(List<Dirty<R>> keys) {
    Call call = new Call(keys.size());
    callsInFlight++;
    List<CompletableFuture<MirrorOutcome>> outcomes;
    try {
      outcomes = mirror.apply(keys);
      if (outcomes.size() != keys.size()) {
        throw new IllegalStateException(outcomes.size() + " outcomes for " + keys.size() + " keys");
      }
    } catch (RuntimeException e) {
      CompletableFuture<MirrorOutcome> failed =
          CompletableFuture.completedFuture(new MirrorOutcome(MirrorResult.FAILED, 0, false, e));
      outcomes = keys.stream().map(k -> failed).toList();
    }
    for (int i = 0; i < keys.size(); i++) {
      Dirty<R> key = keys.get(i);
      outcomes
          .get(i)
          .whenComplete(
              (o, e) -> {
                if (!closed) {
                  MirrorOutcome out =
                      e == null ? o : new MirrorOutcome(MirrorResult.FAILED, 0, false, e);
                  completions.add(new Completion<>(call, key, out));
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
          Printable.escape(key),
          o.error() == null ? o.result().label() : o.error().toString());
      lastFailureLogMs = nowMs;
      failuresSinceLog = 0;
    }
  }

  /** Stops accepting completions; keys still out stay dirty in the changelog. */
  void close() {
    closed = true;
  }
}
