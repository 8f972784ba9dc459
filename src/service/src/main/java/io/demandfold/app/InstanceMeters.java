package io.demandfold.app;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.KafkaStreams;

/**
 * The meters of one instance: the caller's registry, and a Prometheus registry for {@code /metrics}
 * that receives the same meters (the caller's own when it is one). {@link #bind(KafkaStreams)} adds
 * the JVM, process and Kafka Streams client meters; {@link #close()} unregisters their listeners.
 */
final class InstanceMeters implements AutoCloseable {
  private final MeterRegistry registry;
  private final PrometheusMeterRegistry prometheus;
  private final List<AutoCloseable> binders = new ArrayList<>();

  InstanceMeters(MeterRegistry given) {
    this.prometheus =
        given instanceof PrometheusMeterRegistry p
            ? p
            : new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    this.registry =
        given == prometheus
            ? given
            : new CompositeMeterRegistry(Clock.SYSTEM, List.of(given, prometheus));
  }

  /** Where the instance registers its meters. */
  MeterRegistry registry() {
    return registry;
  }

  /** What {@code /metrics} scrapes. */
  PrometheusMeterRegistry prometheus() {
    return prometheus;
  }

  /** Binds JVM and process meters and the Kafka Streams client's own metrics. */
  void bind(KafkaStreams streams) {
    JvmGcMetrics gc = new JvmGcMetrics();
    KafkaStreamsMetrics kafka = new KafkaStreamsMetrics(streams);
    binders.add(gc);
    binders.add(kafka);
    for (MeterBinder b :
        List.of(
            new JvmMemoryMetrics(),
            gc,
            new JvmThreadMetrics(),
            new ClassLoaderMetrics(),
            new ProcessorMetrics(),
            new UptimeMetrics(),
            new FileDescriptorMetrics(),
            kafka)) {
      b.bindTo(registry);
    }
  }

  @Override
  public void close() {
    for (AutoCloseable b : binders) {
      try {
        b.close();
      } catch (Exception e) {
        // a binder that cannot unregister keeps only its listener
      }
    }
    binders.clear();
  }
}
