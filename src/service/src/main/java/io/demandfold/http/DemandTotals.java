package io.demandfold.http;

import io.demandfold.core.TableView;
import io.demandfold.http.DemandStore.TableEntry;

/**
 * Totals over the tables one instance holds.
 *
 * @param targets targets held
 * @param targetsPending targets with pending generations
 * @param pendingGenerations their pending generations (saturating)
 * @param pendingBytes their pending bytes (saturating)
 * @param oldestPendingExactMs the earliest exact oldest-pending time over them, or {@link
 *     Long#MAX_VALUE} when none is known exactly
 */
record DemandTotals(
    long targets,
    long targetsPending,
    long pendingGenerations,
    long pendingBytes,
    long oldestPendingExactMs) {

  static DemandTotals of(Iterable<TableEntry> tables) {
    long targets = 0;
    long targetsPending = 0;
    long pending = 0;
    long bytes = 0;
    long oldestExact = Long.MAX_VALUE;
    for (TableEntry e : tables) {
      TableView v = e.view();
      targets++;
      if (v.pendingGenerations() > 0) {
        targetsPending++;
        pending = saturatedAdd(pending, v.pendingGenerations());
        bytes = saturatedAdd(bytes, v.pendingBytes());
      }
      if (v.oldestPendingExactMs().isPresent()) {
        oldestExact = Math.min(oldestExact, v.oldestPendingExactMs().getAsLong());
      }
    }
    return new DemandTotals(targets, targetsPending, pending, bytes, oldestExact);
  }

  /** Age in seconds at {@code nowMs} of the oldest exactly known pending flush; 0 when none. */
  double oldestPendingExactAgeSeconds(long nowMs) {
    return oldestPendingExactMs == Long.MAX_VALUE
        ? 0
        : Math.max(0, nowMs - oldestPendingExactMs) / 1000.0;
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return r < 0 ? Long.MAX_VALUE : r;
  }
}
