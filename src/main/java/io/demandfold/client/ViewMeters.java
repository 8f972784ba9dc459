package io.demandfold.client;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The view's meters, tagged with its etcd prefix (Prometheus names): {@code
 * demandfold_view_revision_lag} (revisions between the newest etcd revision the watch heard of and
 * the one the view is current as of), {@code demandfold_view_tables}, {@code
 * demandfold_view_resyncs_total}, {@code demandfold_view_watch_restarts_total{reason}} and {@code
 * demandfold_view_refused_records{reason=newer_schema|unreadable}}. They leave the registry when
 * the view closes.
 */
final class ViewMeters implements AutoCloseable {
  /** Why the view restarted its watch; the {@code reason} tag. */
  enum Restart {
    /** The watch failed: etcd unreachable, no leader, a halting error. */
    FAILED,
    /** etcd or jetcd ended the watch. */
    ENDED,
    /** Nothing came, not even a progress answer, for three progress intervals. */
    STALLED,
    /** A response found the queue to the view's thread full and was dropped. */
    OVERFLOW;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final MeterRegistry registry;
  private final List<Meter> meters = new ArrayList<>();
  private final Counter resyncs;
  private final Map<Restart, Counter> restarts = new EnumMap<>(Restart.class);

  ViewMeters(MeterRegistry registry, String prefix, ViewState state, LongSupplier heardRevision) {
    this.registry = registry;
    meters.add(
        Gauge.builder(
                "demandfold.view.revision.lag",
                () -> Math.max(0, heardRevision.getAsLong() - state.revision()))
            .description("etcd revisions the view is behind the newest one its watch heard of")
            .tag("prefix", prefix)
            .register(registry));
    meters.add(
        Gauge.builder("demandfold.view.tables", state::tableCount)
            .description("readable table records the view holds")
            .tag("prefix", prefix)
            .register(registry));
    for (boolean newer : new boolean[] {true, false}) {
      meters.add(
          Gauge.builder("demandfold.view.refused.records", () -> state.refusedCount(newer))
              .description("records the view does not read: a newer schema, or unreadable")
              .tag("prefix", prefix)
              .tag("reason", newer ? "newer_schema" : "unreadable")
              .register(registry));
    }
    resyncs =
        Counter.builder("demandfold.view.resyncs")
            .description("fresh snapshots loaded because the watch could not resume")
            .tag("prefix", prefix)
            .register(registry);
    meters.add(resyncs);
    for (Restart r : Restart.values()) {
      Counter c =
          Counter.builder("demandfold.view.watch.restarts")
              .description("watches restarted from the revision after the last one applied")
              .tag("prefix", prefix)
              .tag("reason", r.label())
              .register(registry);
      restarts.put(r, c);
      meters.add(c);
    }
  }

  void resynced() {
    resyncs.increment();
  }

  void restarted(Restart reason) {
    restarts.get(reason).increment();
  }

  long resyncs() {
    return (long) resyncs.count();
  }

  long restarts(Restart reason) {
    return (long) restarts.get(reason).count();
  }

  @Override
  public void close() {
    meters.forEach(registry::remove);
  }
}
