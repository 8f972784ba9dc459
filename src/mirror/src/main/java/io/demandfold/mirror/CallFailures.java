package io.demandfold.mirror;

import io.demandfold.core.Printable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the {@link LiveMirror} does when its calls go wrong. An error of etcd itself pauses every
 * lane, 100 ms after the first failed call in a row, doubling up to 5 s ({@link #pausedUntilMs}),
 * counted ({@code demandfold_mirror_pauses_total}); a call that etcd answered ends the run. A key
 * etcd refused for a reason of its own pauses nothing (its lane backs it off alone) and is counted
 * ({@code demandfold_mirror_key_failures_total}). Each of the two is logged at most every 30 s, as
 * one WARN saying how many since the last and naming the last key. Thread-safe.
 */
final class CallFailures {
  // the live mirror's logger: its lines keep the name operators filter on
  private static final Logger log = LoggerFactory.getLogger(LiveMirror.class);
  private static final long MAX_PAUSE_MS = 5_000;
  private static final long LOG_INTERVAL_MS = 30_000;

  private final MirrorMetrics metrics;
  private volatile long pausedUntilMs;
  private int failedInARow;
  private long failuresSinceLog;
  // far in the past, yet "now - last" does not overflow: the first one is logged at once
  private long lastFailureLogMs = Long.MIN_VALUE / 2;
  private long refusalsSinceLog;
  private long lastRefusalLogMs = Long.MIN_VALUE / 2;

  CallFailures(MirrorMetrics metrics) {
    this.metrics = metrics;
  }

  /** Until when (the mirror's clock) no call starts. */
  long pausedUntilMs() {
    return pausedUntilMs;
  }

  /** etcd answered a call. */
  synchronized void succeeded() {
    failedInARow = 0;
  }

  /**
   * A call of {@code lane} failed at {@code now} for an error of etcd, {@code o} of {@code key}.
   */
  synchronized void failed(MirrorLane<?> lane, String key, MirrorOutcome o, long now) {
    failedInARow++;
    pausedUntilMs = now + Math.min(MAX_PAUSE_MS, 50L << Math.min(failedInARow, 10));
    metrics.paused();
    failuresSinceLog++;
    if (now - lastFailureLogMs >= LOG_INTERVAL_MS) {
      log.warn(
          "writing {} into etcd failed {} time(s) since the last report; every key waits {} ms,"
              + " stays dirty and is retried (last error on {}: {})",
          lane.name(),
          failuresSinceLog,
          pausedUntilMs - now,
          Printable.escape(key),
          o.error() == null ? o.result().label() : o.error().toString());
      lastFailureLogMs = now;
      failuresSinceLog = 0;
    }
  }

  /**
   * etcd refused {@code key} of {@code lane} at {@code now} for a reason of its own, {@code
   * refusals} times in a row.
   */
  synchronized void refused(
      MirrorLane<?> lane, String key, int refusals, MirrorOutcome o, long now) {
    metrics.keyFailed(lane.kind());
    refusalsSinceLog++;
    if (now - lastRefusalLogMs >= LOG_INTERVAL_MS) {
      log.warn(
          "etcd refused {} write(s) of keys for a reason of the key's own since the last report;"
              + " such a key backs off alone (up to {} s) and stays dirty, the others go on (last:"
              + " {} of {}, refused {} time(s) in a row: {})",
          refusalsSinceLog,
          KeyBackoff.MAX_MS / 1000,
          Printable.escape(key),
          lane.name(),
          refusals,
          String.valueOf(o.error()));
      lastRefusalLogMs = now;
      refusalsSinceLog = 0;
    }
  }
}
