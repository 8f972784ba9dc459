package io.demandfold.stream;

/**
 * How often changed records are emitted downstream while the stream is live, shared by every task
 * of an instance: {@code emit.interval.ms} while the fold keeps up, longer while the events a task
 * folds are older than {@code emit.pacing.lag.ms} on average when folded, up to {@code
 * catchup.interval.ms}. Emitting a changed shard (its line on the shard-records topic, its summary
 * through the repartition topic into the table stage, their changelogs) costs the stream thread far
 * more than folding an event, so when the thread falls behind, emitting each shard less often lets
 * it keep up. While the fold stays behind, the live etcd mirror lets keys wait longer too ({@link
 * #mirrorCoalesceMs}): its own limit adapts to how etcd answers, not to the cores its calls, their
 * encoding and etcd itself take from the fold, so it coalesces with the output topics while the
 * fold lags. The interval grows by a quarter (and 100 ms) every period in which a task lagged, and
 * shrinks by 2 % every period in which none lagged more than half as much: it rises within a second
 * of a surge and settles back over some seconds, without flipping between two modes. Thread-safe.
 */
final class Pacing {
  /** How often the interval may change. */
  static final long PERIOD_MS = 100;

  private final long minMs;
  private final long maxMs;
  private final long lagMs;
  private volatile long intervalMs;
  private long periodStartMs = Long.MIN_VALUE;
  private long worstLagMs;

  /**
   * @param minMs the interval while the fold keeps up ({@code emit.interval.ms})
   * @param maxMs the longest interval ({@code catchup.interval.ms}, at least {@code minMs})
   * @param lagMs the lag beyond which the interval grows ({@code emit.pacing.lag.ms})
   */
  Pacing(long minMs, long maxMs, long lagMs) {
    this.minMs = minMs;
    this.maxMs = Math.max(minMs, maxMs);
    this.lagMs = lagMs;
    this.intervalMs = minMs;
  }

  /** The pacing of {@code settings}. */
  static Pacing of(StreamSettings s) {
    return new Pacing(s.emitIntervalMs(), s.catchupIntervalMs(), s.emitPacingLagMs());
  }

  /**
   * The events a task folded since its last tick were {@code lagMs} old on average when folded (0
   * for a task that folded nothing), at wall-clock {@code nowMs}.
   */
  synchronized void observe(long lagMs, long nowMs) {
    worstLagMs = Math.max(worstLagMs, lagMs);
    if (periodStartMs != Long.MIN_VALUE && nowMs - periodStartMs < PERIOD_MS) {
      return;
    }
    if (periodStartMs != Long.MIN_VALUE) {
      long i = intervalMs;
      if (worstLagMs > this.lagMs) {
        i = Math.min(maxMs, i + i / 4 + 100);
      } else if (worstLagMs <= this.lagMs / 2) {
        i = Math.max(minMs, i - Math.max(1, i / 50));
      }
      intervalMs = i;
    }
    periodStartMs = nowMs;
    worstLagMs = 0;
  }

  /**
   * How much longer the live mirror lets a key wait now: how far the emit interval stretched past
   * twice {@code emit.interval.ms}, 0 below. A fold that lags a little (the interval stretched by
   * less than {@code emit.interval.ms}) keeps its etcd writes fresh; one that stays behind frees
   * the cores the mirror's writes take.
   */
  long mirrorCoalesceMs() {
    return Math.max(0, intervalMs - 2 * minMs);
  }

  /** How long a changed record waits before it is emitted now. */
  long emitIntervalMs() {
    return intervalMs;
  }
}
