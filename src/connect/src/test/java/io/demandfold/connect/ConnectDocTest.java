package io.demandfold.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.ConfigKey;
import org.junit.jupiter.api.Test;

/** docs/connect.md carries the connectors' settings tables: the {@code ConfigDef}s, rendered. */
class ConnectDocTest {
  /** The markdown table of {@code definition}: setting, default, meaning. */
  static String table(ConfigDef definition) {
    StringBuilder sb = new StringBuilder("| setting | default | meaning |\n|---|---|---|\n");
    for (ConfigKey k : definition.configKeys().values()) {
      String def =
          k.defaultValue == ConfigDef.NO_DEFAULT_VALUE
              ? "(required)"
              : k.defaultValue == null
                  ? "(none)"
                  : "`" + ConfigDef.convertToString(k.defaultValue, k.type) + "`";
      sb.append("| `")
          .append(k.name)
          .append("` | ")
          .append(def)
          .append(" | ")
          .append(k.documentation)
          .append(" |\n");
    }
    return sb.toString();
  }

  @Test
  void shouldCarryBothSettingsTablesExactlyAsDeclared() throws IOException {
    String readme = Files.readString(Path.of("docs/connect.md"));
    assertThat(readme).contains(table(EtcdSinkConfig.DEFINITION));
    assertThat(readme).contains(table(EtcdSourceConfig.DEFINITION));
    assertThat(readme).contains("connectors/etcd-sink.json", "connectors/etcd-source.json");
  }
}
