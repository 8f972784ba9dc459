package io.demandfold.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.mirror.config.EtcdConfigs;
import java.util.List;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.ConfigKey;
import org.junit.jupiter.api.Test;

/** The etcd settings mean the same in the pipeline and in the connectors: one declaration. */
class SharedSettingsTest {
  private static final List<String> ETCD =
      List.of(
          EtcdConfigs.ETCD_ENDPOINTS,
          EtcdConfigs.ETCD_PREFIX,
          EtcdConfigs.ETCD_USER,
          EtcdConfigs.ETCD_PASSWORD,
          EtcdConfigs.ETCD_TLS_CA,
          EtcdConfigs.ETCD_TLS_CERT,
          EtcdConfigs.ETCD_TLS_KEY,
          EtcdConfigs.ETCD_REQUEST_TIMEOUT_MS);
  private static final List<String> MIRROR =
      List.of(
          EtcdConfigs.ETCD_MAX_REQUEST_BYTES,
          EtcdConfigs.MIRROR_TABLES,
          EtcdConfigs.MIRROR_CONCURRENCY,
          EtcdConfigs.MIRROR_RETRIES);

  private static void assertDeclaredAlike(ConfigDef connector, List<String> names) {
    for (String name : names) {
      ConfigKey ours = DemandfoldConfig.DEFINITION.configKeys().get(name);
      ConfigKey theirs = connector.configKeys().get(name);
      assertThat(theirs).as(name).isNotNull();
      assertThat(theirs.documentation).as(name).isEqualTo(ours.documentation);
      assertThat(theirs.type).as(name).isEqualTo(ours.type);
      assertThat(theirs.importance).as(name).isEqualTo(ours.importance);
      if (!name.equals(EtcdConfigs.ETCD_ENDPOINTS)) {
        assertThat(theirs.defaultValue).as(name).isEqualTo(ours.defaultValue);
        assertThat(theirs.validator).as(name).isSameAs(ours.validator);
      }
    }
  }

  @Test
  void shouldDeclareTheEtcdSettingsOnceForThePipelineAndBothConnectors() {
    assertDeclaredAlike(EtcdSinkConfig.DEFINITION, ETCD);
    assertDeclaredAlike(EtcdSinkConfig.DEFINITION, MIRROR);
    assertDeclaredAlike(EtcdSourceConfig.DEFINITION, ETCD);
  }

  @Test
  void shouldRequireEndpointsInTheConnectorsOnly() {
    assertThat(
            DemandfoldConfig.DEFINITION.configKeys().get(EtcdConfigs.ETCD_ENDPOINTS).hasDefault())
        .isTrue();
    assertThat(EtcdSinkConfig.DEFINITION.configKeys().get(EtcdConfigs.ETCD_ENDPOINTS).hasDefault())
        .isFalse();
    assertThat(
            EtcdSourceConfig.DEFINITION.configKeys().get(EtcdConfigs.ETCD_ENDPOINTS).hasDefault())
        .isFalse();
  }
}
