package io.demandfold.view;

import io.demandfold.core.EnumNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
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
    STALLED
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
    ETCD_REWOUND
  }

  private final MeterRegistry registry;
  private final List<Meter> meters = new ArrayList<>();
  private final Map<Resync, Counter> resyncs;
  private final Map<Restart, Counter> restarts;
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
    resyncs =
        counters(
            Resync.class,
            "demandfold.view.resyncs",
            "fresh snapshots loaded because the watch could not go on",
            prefix);
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
    restarts =
        counters(
            Restart.class,
            "demandfold.view.watch.restarts",
            "watches restarted from the revision after the last one applied",
            prefix);
  }

  /** A counter per reason, tagged with the reason's lower-case name. */
  private <E extends Enum<E>> Map<E, Counter> counters(
      Class<E> reasons, String name, String description, String prefix) {
    Map<E, Counter> out = new EnumMap<>(reasons);
    for (E reason : reasons.getEnumConstants()) {
      Counter c =
          Counter.builder(name)
              .description(description)
              .tag("prefix", prefix)
              .tag("reason", EnumNames.of(reason))
              .register(registry);
      out.put(reason, c);
      meters.add(c);
    }
    return out;
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
