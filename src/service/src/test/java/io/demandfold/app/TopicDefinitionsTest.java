package io.demandfold.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.config.SettingsLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopicDefinitionsTest {
  private static DemandfoldConfig config(Map<String, String> settings) {
    SettingsLoader l = new SettingsLoader();
    settings.forEach((k, v) -> l.flag(k, v, "test"));
    return l.load();
  }

  @Test
  void shouldLeaveReplicationToTheBrokerByDefault() {
    for (NewTopic t : TopicDefinitions.of(config(Map.of())).topics().values()) {
      assertThat(t.replicationFactor()).as(t.name()).isEqualTo((short) -1);
      assertThat(t.configs()).as(t.name()).doesNotContainKey("min.insync.replicas");
    }
  }

  @Test
  void shouldGiveEveryCreatedTopicTheConfiguredReplication() {
    Map<String, NewTopic> topics =
        TopicDefinitions.of(
                config(
                    Map.of(
                        DemandfoldConfig.TOPICS_REPLICATION_FACTOR, "3",
                        DemandfoldConfig.TOPICS_MIN_INSYNC_REPLICAS, "2")))
            .topics();
    assertThat(topics).hasSize(TopicDefinitions.ROLES.size());
    for (NewTopic t : topics.values()) {
      assertThat(t.replicationFactor()).as(t.name()).isEqualTo((short) 3);
      assertThat(t.configs()).as(t.name()).containsEntry("min.insync.replicas", "2");
    }
  }

  @Test
  void shouldLetTheDefinitionsFileSayOtherwiseForOneRole(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("topics.properties");
    Files.writeString(
        file,
        Files.readString(Path.of("topology/topics.properties"))
                .replace("dlq.replication.factor=-1", "dlq.replication.factor=2")
            + "dlq.config.min.insync.replicas=1\n");
    Map<String, NewTopic> topics =
        TopicDefinitions.of(
                config(
                    Map.of(
                        DemandfoldConfig.TOPICS_DEFINITIONS, file.toString(),
                        DemandfoldConfig.TOPICS_REPLICATION_FACTOR, "3",
                        DemandfoldConfig.TOPICS_MIN_INSYNC_REPLICAS, "2")))
            .topics();
    NewTopic dlq = topics.get("demand.events.dlq");
    assertThat(dlq.replicationFactor()).isEqualTo((short) 2);
    assertThat(dlq.configs()).containsEntry("min.insync.replicas", "1");
    NewTopic shards = topics.get("demand.shard-records");
    assertThat(shards.replicationFactor()).isEqualTo((short) 3);
    assertThat(shards.configs()).containsEntry("min.insync.replicas", "2");
  }
}
