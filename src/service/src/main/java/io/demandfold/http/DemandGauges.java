package io.demandfold.http;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The demand this instance holds, as gauges, from the newest sample of a {@link DemandHistory}
 * (taken every 5 s; ages against the history's clock); NaN while the stores cannot be read:
 *
 * <ul>
 *   <li>{@code demandfold_pending_generations}, {@code demandfold_pending_bytes}, {@code
 *       demandfold_targets_pending}: totals over the tables held here;
 *   <li>{@code demandfold_oldest_pending_exact_age_seconds}: the age of the oldest pending flush
 *       whose time is known exactly, over the tables held here (0 when none): what age-based
 *       promotion and its alert look at.
 * </ul>
 */
final class DemandGauges implements AutoCloseable {
  private final MeterRegistry registry;
  private final List<Meter> meters = new ArrayList<>();

  DemandGauges(MeterRegistry registry, DemandHistory history) {
    this.registry = registry;
    gauge(
        history,
        "demandfold.pending.generations",
        "generations waiting to be merged over the tables this instance holds",
        null,
        t -> t.pendingGenerations());
    gauge(
        history,
        "demandfold.pending.bytes",
        "bytes of the shards with pending generations over the tables this instance holds",
        null,
        t -> t.pendingBytes());
    gauge(
        history,
        "demandfold.targets.pending",
        "tables (targets) held by this instance that have pending generations",
        null,
        t -> t.targetsPending());
    gauge(
        history,
        "demandfold.oldest.pending.exact.age",
        "age of the oldest pending flush whose time is known exactly, over the tables this"
            + " instance holds; 0 when none",
        "seconds",
        t -> t.oldestPendingExactAgeSeconds(history.now()));
  }

  private void gauge(
      DemandHistory history,
      String name,
      String description,
      String unit,
      ToDoubleFunction<DemandTotals> value) {
    meters.add(
        Gauge.builder(
                name,
                history,
                h -> {
                  DemandHistory.Sample s = h.last();
                  return s == null ? Double.NaN : value.applyAsDouble(s.totals());
                })
            .description(description)
            .baseUnit(unit)
            .strongReference(true)
            .register(registry));
  }

  @Override
  public void close() {
    meters.forEach(registry::remove);
    meters.clear();
  }
}
