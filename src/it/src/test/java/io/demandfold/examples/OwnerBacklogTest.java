package io.demandfold.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.examples.OwnerBacklog.TeamBacklog;
import io.demandfold.examples.OwnerBacklog.Topics;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The owner-backlog topology on Kafka's {@code TopologyTestDriver}. */
class OwnerBacklogTest {

  /** Each test's own state directory: the default under /tmp is shared by every build here. */
  @TempDir Path stateDir;

  private static Topology topology() {
    StreamsBuilder builder = new StreamsBuilder();
    OwnerBacklog.buildTopology(builder, Topics.DEFAULT);
    return builder.build();
  }

  @Test
  void shouldNameEveryProcessorStoreAndInternalTopic() {
    String described = topology().describe().toString();
    assertThat(described)
        .contains(OwnerBacklog.READ_DEMAND, OwnerBacklog.OWNERS_STORE, OwnerBacklog.SUM_PER_TEAM)
        .contains(OwnerBacklog.BY_TEAM + "-repartition")
        .doesNotContain("KSTREAM-")
        .doesNotContain("KTABLE-");
  }

  @Test
  void shouldMoveDemandBetweenTeamsAsOwnersAndDemandChange() {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "owner-backlog-test");
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    try (TopologyTestDriver driver = new TopologyTestDriver(topology(), props)) {
      TestInputTopic<String, String> demand =
          driver.createInputTopic(
              Topics.DEFAULT.tableDemand(), new StringSerializer(), new StringSerializer());
      TestInputTopic<String, String> owners =
          driver.createInputTopic(
              Topics.DEFAULT.owners(), new StringSerializer(), new StringSerializer());
      TestOutputTopic<String, String> out =
          driver.createOutputTopic(
              Topics.DEFAULT.backlog(), new StringDeserializer(), new StringDeserializer());

      owners.pipeInput("orders", "storage");
      owners.pipeInput("users", "storage");
      owners.pipeInput("clicks", "ingest");
      demand.pipeInput("6f7264657273", line("orders", 10, 1000));
      demand.pipeInput("7573657273", line("users", 5, 500));
      demand.pipeInput("636c69636b73", line("clicks", 7, 700));
      demand.pipeInput("6e6f626f6479", line("nobody", 99, 9900)); // no owner: left out
      assertThat(latest(out))
          .isEqualTo(
              Map.of(
                  "storage", new TeamBacklog("storage", 2, 15, 1500),
                  "ingest", new TeamBacklog("ingest", 1, 7, 700)));

      demand.pipeInput("6f7264657273", line("orders", 3, 300));
      owners.pipeInput("users", "ingest");
      assertThat(latest(out))
          .isEqualTo(
              Map.of(
                  "storage", new TeamBacklog("storage", 1, 3, 300),
                  "ingest", new TeamBacklog("ingest", 2, 12, 1200)));

      owners.pipeInput("orders", (String) null);
      Map<String, String> last = out.readKeyValuesToMap();
      assertThat(last).containsEntry("storage", null);
    }
  }

  private static String line(String target, long pending, long bytes) {
    return "{\"kind\":\"table\",\"target\":\""
        + target
        + "\",\"pending_generations\":"
        + pending
        + ",\"pending_bytes\":"
        + bytes
        + ",\"oldest_pending_ms\":null,\"oldest_pending_exact_ms\":null,\"shards\":1}";
  }

  /** The latest value per team written since the last read. */
  private static Map<String, TeamBacklog> latest(TestOutputTopic<String, String> out) {
    Map<String, TeamBacklog> m = new java.util.TreeMap<>();
    out.readKeyValuesToMap()
        .forEach(
            (team, json) ->
                m.put(
                    team,
                    TeamBacklog.parse(json.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
    return m;
  }
}
