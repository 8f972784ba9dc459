package io.demandfold.connect;

import static io.demandfold.connect.EtcdSinkConfigTest.errors;
import static io.demandfold.connect.EtcdSinkConfigTest.minimal;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class EtcdSourceConfigTest {
  private static Map<String, String> with(String name, String value) {
    return EtcdSinkConfigTest.with(name, value);
  }

  @Test
  void shouldDefaultToJsonEventsOnDemandEvents() {
    EtcdSourceConfig c = new EtcdSourceConfig(minimal());
    assertThat(c.topic()).isEqualTo("demand.events");
    assertThat(c.avro()).isFalse();
    assertThat(c.batchSize()).isEqualTo(500);
    assertThat(c.pollTimeoutMs()).isEqualTo(1000);
    assertThat(new EtcdSourceConfig(with("encoding", "avro")).avro()).isTrue();
  }

  @Test
  void shouldRejectEachBadSettingWithAMessageNamingIt() {
    Map<String, String[]> bad = new java.util.LinkedHashMap<>();
    bad.put(
        "topic",
        new String[] {
          "demand events", "contains one or more characters other than ASCII alphanumerics"
        });
    bad.put("encoding", new String[] {"protobuf", "String must be one of: json, avro"});
    bad.put("batch.size", new String[] {"0", "Value must be at least 1"});
    bad.put("poll.timeout.ms", new String[] {"5", "Value must be at least 10"});
    bad.put("watch.progress.interval.ms", new String[] {"50", "Value must be at least 100"});
    bad.put("etcd.endpoints", new String[] {"etcd://x:1", "expected http://host:port"});
    bad.forEach(
        (name, v) ->
            assertThatThrownBy(() -> new EtcdSourceConfig(with(name, v[0])))
                .as(name)
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(name)
                .hasMessageContaining(v[1]));
  }

  @Test
  void shouldRefuseEndpointsOfMixedSchemesOnTheSettingItself() {
    String mixed = "https://etcd1:2379,http://etcd2:2379";
    assertThatThrownBy(() -> new EtcdSourceConfig(with("etcd.endpoints", mixed)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("etcd.endpoints")
        .hasMessageContaining("mixes http:// and https://");
    Map<String, List<String>> errors =
        errors(new EtcdSourceConnector().validate(with("etcd.endpoints", mixed)));
    assertThat(errors).containsOnlyKeys("etcd.endpoints");
    assertThat(errors.get("etcd.endpoints").get(0)).contains("mixes http:// and https://");
    assertThat(new EtcdSourceConfig(with("etcd.endpoints", "https://etcd1:2379")).etcd().tls())
        .isTrue();
  }

  @Test
  void shouldAcceptOnlyTheByteArrayConverter() {
    EtcdSourceConnector connector = new EtcdSourceConnector();
    Map<String, List<String>> errors =
        errors(connector.validate(with("value.converter", EtcdConnectorConfig.STRING_CONVERTER)));
    assertThat(errors).containsOnlyKeys("value.converter");
    assertThat(errors.get("value.converter").get(0))
        .contains(EtcdConnectorConfig.BYTE_ARRAY_CONVERTER)
        .doesNotContain(" or ");
    assertThat(errors(connector.validate(minimal()))).isEmpty();
  }

  @Test
  void shouldRunOneTaskWhateverTasksMaxSays() {
    EtcdSourceConnector connector = new EtcdSourceConnector();
    connector.start(minimal());
    assertThat(connector.taskConfigs(8)).singleElement().isEqualTo(minimal());
  }

  @Test
  void shouldAcceptOnlyOffsetsOfItsOwnShape() {
    EtcdSourceConnector connector = new EtcdSourceConnector();
    Map<String, ?> partition = Map.of("etcd.prefix", "/demandfold");
    assertThat(
            connector.alterOffsets(
                minimal(), Map.of(partition, Map.of("phase", "watch", "revision", 42L))))
        .isTrue();
    assertThatThrownBy(
            () ->
                connector.alterOffsets(
                    minimal(), Map.of(partition, Map.of("phase", "tail", "revision", 1L))))
        .hasMessageContaining("'phase' is tail");
    assertThatThrownBy(
            () ->
                connector.alterOffsets(
                    minimal(), Map.of(Map.of("prefix", "/x"), Map.of("revision", 1L))))
        .hasMessageContaining("etcd.prefix");
  }
}
