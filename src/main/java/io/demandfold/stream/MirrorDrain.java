package io.demandfold.stream;

import io.demandfold.mirror.MirrorOutcome;
import io.demandfold.mirror.MirrorResult;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drains an {@link Outbox} into etcd with bounded concurrency. Called only from the stream thread
 * (at each punctuation): it applies the completions collected since the last call (jetcd completes
 * on its own threads, which only enqueue), then starts mirror calls for dirty keys up to the bound:
 * at most {@code concurrency} requests of at most {@code batchKeys} keys each. Consecutive failures
 * back off exponentially up to 5 s; the stream thread never waits.
 */
final class MirrorDrain {
  private static final Logger log = LoggerFactory.getLogger(MirrorDrain.class);
  private static final long MAX_BACKOFF_MS = 5_000;
  private static final long FAILURE_LOG_INTERVAL_MS = 30_000;

  private final String name;
  private final Outbox outbox;
  private final int capacity;
  private final int batchKeys;
  private final Function<List<String>, List<CompletableFuture<MirrorOutcome>>> mirror;
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
   * @param concurrency most mirror calls in flight
   * @param batchKeys most keys per call
   * @param mirror starts the read-join-CAS of up to {@code batchKeys} keys, one outcome per key in
   *     their order; called on the stream thread
   */
  MirrorDrain(
      String name,
      Outbox outbox,
      int concurrency,
      int batchKeys,
      Function<List<String>, List<CompletableFuture<MirrorOutcome>>> mirror) {
    this.name = name;
    this.outbox = outbox;
    this.capacity = concurrency * batchKeys;
    this.batchKeys = batchKeys;
    this.mirror = mirror;
  }

  /** Applies finished calls, then starts new ones. */
  void tick(long nowMs) {
    applyCompletions(nowMs);
    startCalls(nowMs);
  }

  /**
   * Applies the calls finished since the last call: settled keys become clean, failures back off.
   */
  void applyCompletions(long nowMs) {
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
  }

  /**
   * Starts mirror calls for dirty keys up to the bound.
   *
   * @return whether every dirty key waiting for a call got one
   */
  boolean startCalls(long nowMs) {
    if (nowMs < pausedUntilMs) {
      return false;
    }
    int free = capacity - inFlight;
    if (free <= 0) {
      return false;
    }
    List<String> keys = outbox.takeForMirror(free);
    for (int from = 0; from < keys.size(); from += batchKeys) {
      start(keys.subList(from, Math.min(keys.size(), from + batchKeys)));
    }
    return keys.size() < free;
  }

  private void start(List<String> keys) {
    int[] changes = new int[keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      changes[i] = outbox.changes(keys.get(i));
    }
    inFlight += keys.size();
    List<CompletableFuture<MirrorOutcome>> outcomes;
    try {
      outcomes = mirror.apply(List.copyOf(keys));
    } catch (RuntimeException e) {
      CompletableFuture<MirrorOutcome> failed =
          CompletableFuture.completedFuture(new MirrorOutcome(MirrorResult.FAILED, 0, false, e));
      outcomes = keys.stream().map(k -> failed).toList();
    }
    for (int i = 0; i < keys.size(); i++) {
      String key = keys.get(i);
      int atStart = changes[i];
      outcomes
          .get(i)
          .whenComplete(
              (o, e) -> {
                if (!closed) {
                  MirrorOutcome out =
                      e == null ? o : new MirrorOutcome(MirrorResult.FAILED, 0, false, e);
                  completions.add(new Completion(key, atStart, out));
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

  /** A batch mirror that makes one call per key. */
  static Function<List<String>, List<CompletableFuture<MirrorOutcome>>> oneByOne(
      Function<String, CompletableFuture<MirrorOutcome>> mirror) {
    return keys -> keys.stream().map(mirror).toList();
  }

  int inFlight() {
    return inFlight;
  }

  /** Stops accepting completions; keys still out stay dirty in the changelog. */
  void close() {
    closed = true;
  }
}
