package io.demandfold.sim;

import io.demandfold.client.DemandPublisher;
import io.demandfold.client.DemandPublisher.ScanWatermarks;
import io.demandfold.core.DemandEvent;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Publishes a {@link FleetModel}'s events live through a {@link DemandPublisher}: writers flush at
 * {@code flushesPerSecond} in total, executors merge at {@code mergesPerSecond}, the scan reports
 * every shard every {@code scanInterval}, and every {@code epochChangeInterval} one writer takes
 * over a shard under a new epoch.
 */
public final class FleetSimulator implements AutoCloseable {
  private static final long TICK_MS = 100;

  private final FleetModel model;
  private final DemandPublisher publisher;
  private final double flushesPerTick;
  private final double mergesPerTick;
  private final ScheduledExecutorService timer;
  private final AtomicLong published = new AtomicLong();
  private double flushDebt;
  private double mergeDebt;

  /** Starts publishing at once. */
  public FleetSimulator(
      FleetModel model,
      DemandPublisher publisher,
      double flushesPerSecond,
      double mergesPerSecond,
      Duration scanInterval,
      Duration epochChangeInterval) {
    if (flushesPerSecond < 0 || mergesPerSecond < 0) {
      throw new IllegalArgumentException("rates must not be negative");
    }
    this.model = model;
    this.publisher = publisher;
    this.flushesPerTick = flushesPerSecond * TICK_MS / 1000.0;
    this.mergesPerTick = mergesPerSecond * TICK_MS / 1000.0;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "demandfold-fleet");
              t.setDaemon(true);
              return t;
            });
    timer.scheduleAtFixedRate(this::tick, 0, TICK_MS, TimeUnit.MILLISECONDS);
    if (!scanInterval.isZero()) {
      timer.scheduleAtFixedRate(
          this::scan, scanInterval.toMillis(), scanInterval.toMillis(), TimeUnit.MILLISECONDS);
    }
    if (!epochChangeInterval.isZero()) {
      timer.scheduleAtFixedRate(
          () -> model.changeEpoch(model.randomShard()),
          epochChangeInterval.toMillis(),
          epochChangeInterval.toMillis(),
          TimeUnit.MILLISECONDS);
    }
  }

  private void tick() {
    long now = System.currentTimeMillis();
    flushDebt += flushesPerTick;
    while (flushDebt >= 1) {
      flushDebt--;
      send(model.flush(model.randomShard(), now));
    }
    mergeDebt += mergesPerTick;
    while (mergeDebt >= 1) {
      mergeDebt--;
      DemandEvent e = model.merge(model.randomShard(), now);
      if (e != null) {
        send(e);
      }
    }
  }

  private void scan() {
    long now = System.currentTimeMillis();
    for (String target : model.targets()) {
      Map<String, ScanWatermarks> shards = new LinkedHashMap<>();
      for (DemandEvent e : model.scanTarget(target, now)) {
        shards.put(
            e.record().shard(),
            new ScanWatermarks(
                e.record().sealedThrough(),
                e.record().sealedBytesThrough(),
                e.record().hasMergedThrough() ? e.record().mergedThroughOrAbsent() : null,
                e.record().writerEpoch()));
      }
      published.addAndGet(publisher.scan(target, shards, now));
    }
  }

  private void send(DemandEvent e) {
    if (publisher.publish(e)) {
      published.incrementAndGet();
    }
  }

  /** Events accepted by the publisher so far. */
  public long published() {
    return published.get();
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
