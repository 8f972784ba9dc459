package io.demandfold.http;

import io.demandfold.core.DemandClasses;
import io.demandfold.core.Keys;
import io.demandfold.core.Urgency;
import io.demandfold.http.DemandStore.TableEntry;
import io.demandfold.http.TargetDemand.Ranking;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.LongSupplier;

/**
 * This instance's table views as {@code /top} and {@code /summary} need them, read from the store
 * at most once per {@link #MAX_AGE_MS}: a read goes over every target of the instance (and decodes
 * each view), so with several dashboards open, each polling both endpoints every 2 s, and every
 * instance asking every other one, reading per request would scan the store many times a second.
 * Table views change at most once per {@code table.interval.ms} (1 s) anyway. One read keeps the
 * totals and, per ranking, the {@link DemandApi#MAX_TOP} first targets (a bounded heap, not a sort
 * of every target).
 */
final class TableSnapshots {
  /** How long one read of the store answers requests. */
  static final long MAX_AGE_MS = 1000;

  private final DemandStore store;
  private final LongSupplier clockMs;
  private Snapshot last;
  private long takenAtMs;

  TableSnapshots(DemandStore store, LongSupplier clockMs) {
    this.store = store;
    this.clockMs = clockMs;
  }

  /**
   * The totals and rankings of this instance, at most {@link #MAX_AGE_MS} old.
   *
   * @throws StoreUnavailableException while the stores move (nothing is cached then)
   */
  synchronized Snapshot get() {
    long now = clockMs.getAsLong();
    if (last == null || now - takenAtMs >= MAX_AGE_MS || now < takenAtMs) {
      last = Snapshot.of(store.tables(), now);
      takenAtMs = clockMs.getAsLong();
    }
    return last;
  }

  /** The clock's time now. */
  long nowMs() {
    return clockMs.getAsLong();
  }

  /**
   * Totals over the targets of this instance, the first targets with pending generations per
   * ranking, and the queue: the first of them in the order of urgency ({@link
   * DemandClasses#urgencyOrder}) when the snapshot was taken, with how many targets are in each
   * class.
   */
  record Snapshot(
      DemandTotals totals,
      Map<Ranking, List<TargetDemand>> top,
      List<TargetDemand> queue,
      Map<Urgency, Long> classCounts) {

    static Snapshot of(List<TableEntry> tables, long nowMs) {
      DemandClasses classes = DemandClasses.defaults();
      // the hex of UTF-8 bytes sorts as the bytes do: ties go by target without decoding it
      Comparator<TableEntry> urgency =
          classes.urgencyOrder(TableEntry::view, TableEntry::hex, nowMs);
      PriorityQueue<TableEntry> queue = new PriorityQueue<>(urgency.reversed());
      Map<Urgency, Long> counts = new EnumMap<>(Urgency.class);
      for (Urgency u : List.of(Urgency.CRITICAL, Urgency.DUE, Urgency.PENDING)) {
        counts.put(u, 0L);
      }
      for (TableEntry e : tables) {
        if (e.view().pendingGenerations() <= 0) {
          continue;
        }
        counts.merge(classes.classify(e.view(), nowMs), 1L, Long::sum);
        queue.add(e);
        if (queue.size() > DemandApi.MAX_TOP) {
          queue.poll();
        }
      }
      List<TableEntry> first = new ArrayList<>(queue);
      first.sort(urgency);
      Snapshot s = of(tables);
      return new Snapshot(
          s.totals(),
          s.top(),
          first.stream().map(e -> new TargetDemand(Keys.unhex(e.hex()), e.view())).toList(),
          counts);
    }

    private static Snapshot of(List<TableEntry> tables) {
      Map<Ranking, PriorityQueue<TableEntry>> heaps = new EnumMap<>(Ranking.class);
      for (Ranking r : Ranking.values()) {
        // the worst of the kept entries on top, to be dropped first
        heaps.put(r, new PriorityQueue<>(order(r).reversed()));
      }
      for (TableEntry e : tables) {
        if (e.view().pendingGenerations() <= 0) {
          continue;
        }
        for (Ranking r : Ranking.values()) {
          PriorityQueue<TableEntry> heap = heaps.get(r);
          heap.add(e);
          if (heap.size() > DemandApi.MAX_TOP) {
            heap.poll();
          }
        }
      }
      Map<Ranking, List<TargetDemand>> top = new EnumMap<>(Ranking.class);
      for (Ranking r : Ranking.values()) {
        List<TableEntry> kept = new ArrayList<>(heaps.get(r));
        kept.sort(order(r));
        top.put(
            r, kept.stream().map(e -> new TargetDemand(Keys.unhex(e.hex()), e.view())).toList());
      }
      return new Snapshot(DemandTotals.of(tables), top, List.of(), Map.of());
    }

    /** The first {@code n} targets by {@code by}. */
    List<TargetDemand> top(Ranking by, int n) {
      List<TargetDemand> all = top.get(by);
      return all.subList(0, Math.min(n, all.size()));
    }

    /**
     * {@link Ranking#order()} over store entries: the hex of UTF-8 bytes sorts as the bytes do, so
     * ties go by target without decoding every target.
     */
    private static Comparator<TableEntry> order(Ranking r) {
      Comparator<TableEntry> first;
      switch (r) {
        case PENDING:
          first = Comparator.comparingLong((TableEntry e) -> e.view().pendingGenerations());
          first = first.reversed();
          break;
        case BYTES:
          first = Comparator.comparingLong((TableEntry e) -> e.view().pendingBytes()).reversed();
          break;
        default:
          first =
              Comparator.comparingLong(
                  (TableEntry e) -> e.view().oldestPendingMs().orElse(Long.MAX_VALUE));
      }
      return first.thenComparing(TableEntry::hex);
    }
  }
}
