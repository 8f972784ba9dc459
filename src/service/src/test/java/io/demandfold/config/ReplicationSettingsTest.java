package io.demandfold.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class ReplicationSettingsTest {
  private static DemandfoldConfig load(String rf, String minIsr) {
    SettingsLoader l = new SettingsLoader();
    if (rf != null) {
      l.flag(DemandfoldConfig.TOPICS_REPLICATION_FACTOR, rf, "test");
    }
    if (minIsr != null) {
      l.flag(DemandfoldConfig.TOPICS_MIN_INSYNC_REPLICAS, minIsr, "test");
    }
    return l.load();
  }

  @Test
  void shouldDefaultToTheBrokersDefaults() {
    DemandfoldConfig c = load(null, null);
    assertThat(c.getInt(DemandfoldConfig.TOPICS_REPLICATION_FACTOR)).isEqualTo(-1);
    assertThat(c.getInt(DemandfoldConfig.TOPICS_MIN_INSYNC_REPLICAS)).isEqualTo(-1);
    assertThat(c.getBoolean(DemandfoldConfig.TOPICS_REQUIRE_REPLICATION)).isFalse();
  }

  @Test
  void shouldTakeThreeReplicasAndTwoInSync() {
    DemandfoldConfig c = load("3", "2");
    assertThat(c.getInt(DemandfoldConfig.TOPICS_REPLICATION_FACTOR)).isEqualTo(3);
    assertThat(c.getInt(DemandfoldConfig.TOPICS_MIN_INSYNC_REPLICAS)).isEqualTo(2);
  }

  @Test
  void shouldRefuseZeroOrTooManyReplicasNamingTheSetting() {
    assertThatThrownBy(() -> load("0", null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("topics.replication.factor")
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> load("40000", null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("topics.replication.factor");
    assertThatThrownBy(() -> load(null, "-2"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("topics.min.insync.replicas");
    assertThatThrownBy(() -> load("three", null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("topics.replication.factor");
  }

  @Test
  void shouldRefuseMoreInSyncReplicasThanReplicasNamingBoth() {
    assertThatThrownBy(() -> load("2", "3"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("topics.min.insync.replicas")
        .hasMessageContaining("topics.replication.factor=2");
    // against the broker's default replication factor it cannot be judged here
    assertThat(load(null, "3").getInt(DemandfoldConfig.TOPICS_MIN_INSYNC_REPLICAS)).isEqualTo(3);
  }
}
