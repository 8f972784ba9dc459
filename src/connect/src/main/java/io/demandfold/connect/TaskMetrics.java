package io.demandfold.connect;

import java.util.LinkedHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;

/**
 * Counters of a task, registered with Connect's plugin metrics (group {@code plugins}: JMX and
 * every metrics reporter of the worker), which Connect removes when the task stops.
 */
final class TaskMetrics {
  private final PluginMetrics plugin;

  /**
   * @param plugin the task context's plugin metrics, or {@code null} (counted, not published)
   */
  TaskMetrics(PluginMetrics plugin) {
    this.plugin = plugin;
  }

  /** A counter named {@code name}, with {@code tags} given as name, value pairs. */
  LongAdder counter(String name, String description, String... tags) {
    LongAdder adder = new LongAdder();
    gauge(name, description, adder::sum, tags);
    return adder;
  }

  /** Publishes {@code value} as a gauge. */
  void gauge(String name, String description, LongSupplier value, String... tags) {
    if (plugin == null) {
      return;
    }
    LinkedHashMap<String, String> t = new LinkedHashMap<>();
    for (int i = 0; i + 1 < tags.length; i += 2) {
      t.put(tags[i], tags[i + 1]);
    }
    plugin.addMetric(
        plugin.metricName(name, description, t), (Gauge<Long>) (config, now) -> value.getAsLong());
  }
}
