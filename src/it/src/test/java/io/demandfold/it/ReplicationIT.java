package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.app.DemandfoldService;
import io.demandfold.config.DemandfoldConfig;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The replication settings of the topics demandfold creates, and the start-up check of the events
 * topic's replication, on the real single broker of the test services: every topic it creates
 * (outputs, DLQ, misrouted, Kafka Streams' changelogs and repartition topics) carries the
 * configured {@code min.insync.replicas} as its own topic config, and {@code
 * topics.require.replication=true} does not refuse a one-broker cluster, which cannot do better.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ReplicationIT {
  /** {@code topic}'s own min.insync.replicas (null when it has none) for each of {@code topics}. */
  private static Map<String, String> ownMinInsyncReplicas(Admin admin, Set<String> topics)
      throws Exception {
    List<ConfigResource> resources =
        topics.stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
    Map<ConfigResource, Config> configs =
        admin.describeConfigs(resources).all().get(60, TimeUnit.SECONDS);
    Map<String, String> out = new TreeMap<>();
    configs.forEach(
        (r, c) -> {
          ConfigEntry e = c.get("min.insync.replicas");
          out.put(
              r.name(),
              e != null && e.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG
                  ? e.value()
                  : null);
        });
    return out;
  }

  private static Map<String, Integer> replicationFactors(Admin admin, Set<String> topics)
      throws Exception {
    Map<String, TopicDescription> d =
        admin.describeTopics(topics).allTopicNames().get(60, TimeUnit.SECONDS);
    Map<String, Integer> out = new TreeMap<>();
    d.forEach(
        (name, t) ->
            out.put(
                name, t.partitions().stream().mapToInt(p -> p.replicas().size()).min().orElse(0)));
    return out;
  }

  /**
   * The topics of {@code h}: its four of topics.definitions and its application's internal ones.
   */
  private static Set<String> topicsOf(Harness h, Admin admin) throws Exception {
    Set<String> out = new TreeSet<>();
    for (String t : admin.listTopics().names().get(60, TimeUnit.SECONDS)) {
      if (t.startsWith(h.name + "-") || t.startsWith(h.name + ".")) {
        out.add(t);
      }
    }
    return out;
  }

  @Test
  void shouldCreateEveryTopicWithTheConfiguredMinInsyncReplicasAndStartOnOneBroker(
      Services services) throws Exception {
    try (Harness h = new Harness(services, "repl");
        LogCapture logs = new LogCapture()) {
      DemandfoldService s =
          h.start(
              Map.of(
                  DemandfoldConfig.TOPICS_REPLICATION_FACTOR, "1",
                  DemandfoldConfig.TOPICS_MIN_INSYNC_REPLICAS, "1",
                  DemandfoldConfig.TOPICS_REQUIRE_REPLICATION, "true"));
      // the internal topics exist once the first rebalance is done
      Harness.await(
          "the streams RUNNING",
          () -> s.streams().state(),
          st -> st == KafkaStreams.State.RUNNING,
          Harness.PATIENCE);
      Admin admin = services.admin();
      Set<String> topics = topicsOf(h, admin);
      assertThat(topics)
          .contains(
              h.eventsTopic,
              h.name + ".dlq",
              h.name + ".shard-records",
              h.name + ".table-demand",
              h.name + "-misrouted")
          .anyMatch(t -> t.endsWith("-changelog"))
          .anyMatch(t -> t.endsWith("-repartition"));

      Map<String, String> minIsr = ownMinInsyncReplicas(admin, topics);
      assertThat(minIsr).hasSize(topics.size());
      assertThat(minIsr).allSatisfy((t, v) -> assertThat(v).as(t).isEqualTo("1"));
      assertThat(replicationFactors(admin, topics))
          .allSatisfy((t, rf) -> assertThat(rf).as(t).isEqualTo(1));

      // topics.require.replication=true is for 3+ brokers: one broker with RF 1 starts, quietly
      assertThat(s.failure()).isNull();
      assertThat(logs.text())
          .doesNotContain("refusing to start")
          .doesNotContain("has replication factor 1");
    }
  }

  @Test
  void shouldCopyTheEventsTopicsOwnMinInsyncReplicasOntoTheMisroutedTopic(Services services)
      throws Exception {
    try (Harness h = new Harness(services, "repl-copy")) {
      services.createTopic(
          h.eventsTopic, 2, Map.of("min.insync.replicas", "1", "retention.ms", "-1"));
      DemandfoldService s = h.start();
      Admin admin = services.admin();
      Map<String, String> minIsr =
          ownMinInsyncReplicas(admin, Set.of(h.name + "-misrouted", h.name + ".dlq"));
      assertThat(minIsr).containsEntry(h.name + "-misrouted", "1");
      // by default the topics of topics.definitions keep the broker's
      assertThat(minIsr).containsEntry(h.name + ".dlq", null);
      assertThat(s.failure()).isNull();
    }
  }
}
