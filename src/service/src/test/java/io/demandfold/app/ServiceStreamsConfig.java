package io.demandfold.app;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.stream.PipelineMetrics;
import java.util.HashMap;
import java.util.Properties;

/**
 * The Kafka Streams configuration the service builds ({@link DemandfoldService#streamsConfig}), for
 * topology tests in other packages: a TopologyTestDriver then runs with the service's handlers and
 * guarantees, not with a copy of them that can drift.
 */
public final class ServiceStreamsConfig {
  private ServiceStreamsConfig() {}

  /**
   * What the service hands {@code KafkaStreams} for {@code config}, counting into {@code metrics}.
   */
  public static Properties of(DemandfoldConfig config, PipelineMetrics metrics) {
    Properties p = new Properties();
    p.putAll(
        DemandfoldService.streamsConfig(config, new HashMap<>(config.kafkaSettings()), metrics));
    return p;
  }
}
