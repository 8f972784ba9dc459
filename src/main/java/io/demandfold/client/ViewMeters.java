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
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * The view's meters, tagged with its etcd prefix (Prometheus names): {@code
 * demandfold_view_revision_lag} (revisions between the newest etcd revision the watch heard of and
 * the one the view is current as of), {@code demandfold_view_tables}, {@code
 * demandfold_view_resyncs_total{reason}}, {@code demandfold_view_watch_restarts_total{reason}},
 * {@code demandfold_view_refused_records{reason=newer_schema|unreadable}}, {@code
 * demandfold_view_queue_bytes} (watch responses waiting for the view's thread), {@code
 * demandfold_view_listener_errors_total} and {@code demandfold_view_failed} (1 once the view's
 * thread ended on an error). They leave the registry when the view closes.
 */
final class ViewMeters implements AutoCloseable {
  /** Why the view restarted its watch; the {@code reason} tag. */
  enum Restart {
    /** The watch failed: etcd unreachable, no leader, a halting error. */
    FAILED,
    /** etcd or jetcd ended the watch. */
    ENDED,
    /** Nothing came, not even a progress answer, for three progress intervals. */
    STALLED;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Why the view loaded a fresh snapshot; the {@code reason} tag. */
  enum Resync {
    /** etcd compacted the revision the watch had to resume from. */
    COMPACTED,
    /**
     * More came than the view could take: over the queue's bytes, or over the client's message
     * limit in one response.
     */
    BACKLOG,
    /** etcd went back: restored from an older snapshot, wiped, or another cluster. */
    ETCD_REWOUND;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final MeterRegistry registry;
  private final List<Meter> meters = new ArrayList<>();
  private final Map<Resync, Counter> resyncs = new EnumMap<>(Resync.class);
  private final Map<Restart, Counter> restarts = new EnumMap<>(Restart.class);
  private final Counter listenerErrors;

  /**
   * @param heardRevision the newest revision the watch heard of
   * @param queuedBytes bytes waiting for the view's thread
   * @param failed whether the view's thread ended on an error
   */
  ViewMeters(
      MeterRegistry registry,
      String prefix,
      ViewState state,
      LongSupplier heardRevision,
      LongSupplier queuedBytes,
      BooleanSupplier failed) {
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
    for (Resync r : Resync.values()) {
      Counter c =
          Counter.builder("demandfold.view.resyncs")
              .description("fresh snapshots loaded because the watch could not go on")
              .tag("prefix", prefix)
              .tag("reason", r.label())
              .register(registry);
      resyncs.put(r, c);
      meters.add(c);
    }
    meters.add(
        Gauge.builder("demandfold.view.queue.bytes", queuedBytes::getAsLong)
            .description("bytes of watch responses waiting for the view's thread")
            .baseUnit("bytes")
            .tag("prefix", prefix)
            .register(registry));
    listenerErrors =
        Counter.builder("demandfold.view.listener.errors")
            .description("exceptions and errors listeners threw (logged; the view went on)")
            .tag("prefix", prefix)
            .register(registry);
    meters.add(listenerErrors);
    meters.add(
        Gauge.builder("demandfold.view.failed", () -> failed.getAsBoolean() ? 1 : 0)
            .description("1 once the view's thread ended on an error: it follows etcd no more")
            .tag("prefix", prefix)
            .register(registry));
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

  void resynced(Resync reason) {
    resyncs.get(reason).increment();
  }

  void listenerFailed() {
    listenerErrors.increment();
  }

  void restarted(Restart reason) {
    restarts.get(reason).increment();
  }

  long resyncs(Resync reason) {
    return (long) resyncs.get(reason).count();
  }

  long restarts(Restart reason) {
    return (long) restarts.get(reason).count();
  }

  @Override
  public void close() {
    meters.forEach(registry::remove);
  }
}
