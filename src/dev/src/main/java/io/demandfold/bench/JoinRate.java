package io.demandfold.bench;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Join;
import io.demandfold.core.ShardRecord;
import io.demandfold.sim.FleetModel;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The join's throughput on one thread over the benchmark's event mix, measured in-process (the JMH
 * benchmark {@code JoinBenchmark} is the precise figure; this one goes with each run).
 */
final class JoinRate {
  private JoinRate() {}

  static double eventsPerSecond() {
    FleetModel model = new FleetModel(EventLog.SEED, 20, 50);
    int n = 200_000;
    ShardRecord[] events = new ShardRecord[n];
    int[] shard = new int[n];
    Map<String, Integer> index = new HashMap<>();
    for (int i = 0; i < n; i++) {
      DemandEvent e = model.next(EventLog.START_MS + i);
      events[i] = e.record();
      shard[i] = index.computeIfAbsent(e.key(), k -> index.size());
    }
    double[] rates = new double[7];
    for (int round = 0; round < rates.length; round++) {
      ShardRecord[] stored = new ShardRecord[index.size()];
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        stored[shard[i]] = Join.join(stored[shard[i]], events[i]);
      }
      rates[round] = n / ((System.nanoTime() - t0) / 1e9);
    }
    double[] measured = Arrays.copyOfRange(rates, 2, rates.length);
    Arrays.sort(measured);
    return measured[measured.length / 2];
  }
}
