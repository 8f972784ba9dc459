package io.demandfold.connect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.ConfigKey;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Connector;
import org.apache.kafka.connect.runtime.SinkConnectorConfig;
import org.apache.kafka.connect.runtime.SourceConnectorConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code connectors/*.json} are ready to POST: valid, complete, and equal to the defaults. */
class ShippedConnectorConfigsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  static Map<String, String> config(String file) throws Exception {
    JsonNode root = JSON.readTree(Path.of("connectors", file).toFile());
    Map<String, String> out = new LinkedHashMap<>();
    root.get("config").properties().forEach(e -> out.put(e.getKey(), e.getValue().asText()));
    return out;
  }

  @ParameterizedTest
  @ValueSource(strings = {"etcd-sink.json", "etcd-source.json"})
  void shouldBeValidCompleteAndEqualToTheDefaults(String file) throws Exception {
    JsonNode root = JSON.readTree(Path.of("connectors", file).toFile());
    assertThat(root.get("name").asText()).startsWith("demandfold-etcd-");
    Map<String, String> config = config(file);
    boolean sink = file.contains("sink");
    Connector connector = sink ? new EtcdSinkConnector() : new EtcdSourceConnector();
    ConfigDef framework =
        sink ? SinkConnectorConfig.configDef() : SourceConnectorConfig.configDef();
    ConfigDef ours = connector.config();

    assertThat(config.get("connector.class")).isEqualTo(connector.getClass().getName());
    assertThat(config.get("key.converter")).isEqualTo(EtcdConnectorConfig.BYTE_ARRAY_CONVERTER);
    assertThat(config.get("value.converter")).isEqualTo(EtcdConnectorConfig.BYTE_ARRAY_CONVERTER);
    for (String name : config.keySet()) {
      assertThat(ours.names().contains(name) || framework.names().contains(name))
          .as("%s names a setting of the connector or of Connect", name)
          .isTrue();
    }
    for (ConfigKey key : ours.configKeys().values()) {
      if (key.defaultValue == ConfigDef.NO_DEFAULT_VALUE) {
        assertThat(config).as("required %s", key.name).containsKey(key.name);
      } else if (key.defaultValue != null) {
        assertThat(config.get(key.name))
            .as("%s in %s", key.name, file)
            .isEqualTo(ConfigDef.convertToString(key.defaultValue, key.type));
      } else {
        assertThat(config).as("%s has no default: left out", key.name).doesNotContainKey(key.name);
      }
    }
    for (ConfigValue v : connector.validate(config).configValues()) {
      assertThat(v.errorMessages()).as(v.name()).isEmpty();
    }
  }
}
