package io.demandfold.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.demandfold.config.DemandfoldConfig;
import io.demandfold.config.SettingsLoader;
import io.demandfold.stream.PipelineMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class DemandfoldServiceTest {
  @Test
  @SuppressWarnings("deprecation") // the setting goes away when Kafka 5.0 makes it the default
  void shouldEnableTheGlobalProcessingHandlerWhereThePartitionAssignorReadsItToo() {
    DemandfoldConfig config =
        new SettingsLoader()
            .flag(DemandfoldConfig.BOOTSTRAP_SERVERS, "127.0.0.1:9", "test")
            .flag(DemandfoldConfig.ETCD_ENDPOINTS, "http://127.0.0.1:2379", "test")
            .load();
    Map<String, Object> props =
        DemandfoldService.streamsConfig(
            config,
            new HashMap<>(config.kafkaSettings()),
            new PipelineMetrics(new SimpleMeterRegistry()));
    ListAppender<ILoggingEvent> warnings = new ListAppender<>();
    Logger streamsConfigLog = (Logger) LoggerFactory.getLogger(StreamsConfig.class);
    warnings.setContext(streamsConfigLog.getLoggerContext());
    warnings.start();
    streamsConfigLog.addAppender(warnings);
    try {
      StreamsConfig streams = new StreamsConfig(props);
      assertThat(
              streams.getBoolean(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG))
          .isTrue();
      // what StreamsPartitionAssignor builds its StreamsConfig from (AssignorConfiguration)
      Map<String, Object> consumer = streams.getMainConsumerConfigs("g", "c", 0);
      StreamsConfig assignor = new StreamsConfig(consumer);
      assertThat(
              assignor.getBoolean(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG))
          .isTrue();
    } finally {
      streamsConfigLog.detachAppender(warnings);
    }
    assertThat(warnings.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .noneMatch(m -> m.contains("GlobalThread"));
  }

  private static Map<String, Object> streamsConfig(Map<String, String> settings) {
    SettingsLoader l =
        new SettingsLoader().flag(DemandfoldConfig.BOOTSTRAP_SERVERS, "127.0.0.1:9", "test");
    settings.forEach((k, v) -> l.flag(k, v, "test"));
    DemandfoldConfig config = l.load();
    return DemandfoldService.streamsConfig(
        config,
        new HashMap<>(config.kafkaSettings()),
        new PipelineMetrics(new SimpleMeterRegistry()));
  }

  @Test
  void shouldGiveStreamsInternalTopicsTheConfiguredReplication() {
    StreamsConfig streams =
        new StreamsConfig(
            streamsConfig(
                Map.of(
                    DemandfoldConfig.TOPICS_REPLICATION_FACTOR, "3",
                    DemandfoldConfig.TOPICS_MIN_INSYNC_REPLICAS, "2")));
    assertThat(streams.getInt(StreamsConfig.REPLICATION_FACTOR_CONFIG)).isEqualTo(3);
    // what Kafka Streams puts on every changelog and repartition topic it creates
    assertThat(streams.originalsWithPrefix(StreamsConfig.TOPIC_PREFIX))
        .containsEntry("min.insync.replicas", 2);
  }

  @Test
  void shouldLeaveStreamsReplicationToTheBrokerByDefault() {
    Map<String, Object> p = streamsConfig(Map.of());
    assertThat(p).doesNotContainKey(StreamsConfig.REPLICATION_FACTOR_CONFIG);
    assertThat(p).doesNotContainKey(StreamsConfig.topicPrefix("min.insync.replicas"));
    assertThat(new StreamsConfig(p).getInt(StreamsConfig.REPLICATION_FACTOR_CONFIG)).isEqualTo(-1);
  }

  @Test
  void shouldRefuseAPassThroughReplicationFactorThatDisagreesNamingBothSettings() {
    assertThatThrownBy(
            () ->
                streamsConfig(
                    Map.of(
                        DemandfoldConfig.TOPICS_REPLICATION_FACTOR,
                        "3",
                        "kafka.replication.factor",
                        "2")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.replication.factor")
        .hasMessageContaining("topics.replication.factor=3");
    assertThat(
            streamsConfig(
                Map.of(
                    DemandfoldConfig.TOPICS_REPLICATION_FACTOR,
                    "3",
                    "kafka.replication.factor",
                    "3")))
        .containsEntry(StreamsConfig.REPLICATION_FACTOR_CONFIG, 3);
  }
}
