package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Events;
import io.demandfold.core.Fold;
import io.demandfold.core.TableView;
import io.demandfold.examples.OwnerBacklog;
import io.demandfold.examples.OwnerBacklog.TeamBacklog;
import io.demandfold.examples.OwnerBacklog.Topics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code examples/owner-backlog}: the example application joins the real pipeline's {@code
 * table-demand} output with a compacted owners topic; each team's backlog equals the sum of the
 * offline fold over the tables it owns, also after owners change and demand grows.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class OwnerBacklogIT {

  @Test
  void shouldKeepEachTeamsBacklogEqualToTheOfflineFoldOfTheTablesItOwns(Services services)
      throws Exception {
    try (Harness h = new Harness(services, "owners")) {
      Random rnd = new Random(31);
      List<DemandEvent> events = new ArrayList<>(RandomStreams.stream(rnd, "owned", 6, 24, 1500));
      h.start();
      h.produce(events, rnd);
      Fold fold = Harness.fold(events);
      h.awaitEtcd(fold);
      List<String> tables = new ArrayList<>(fold.targets().keySet());
      assertThat(tables).hasSize(6);

      Topics topics =
          new Topics(h.name + ".table-demand", h.name + ".table-owners", h.name + ".team-backlog");
      Properties props = new Properties();
      props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, services.bootstrapServers());
      props.put(StreamsConfig.APPLICATION_ID_CONFIG, h.name + "-owner-backlog");
      Path state = Files.createTempDirectory("owner-backlog-state-");
      props.put(StreamsConfig.STATE_DIR_CONFIG, state.toString());
      props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
      OwnerBacklog.createCompacted(props, List.of(topics.owners(), topics.backlog()));

      // tables 0, 1 to storage, 2 to 4 to ingest, 5 to nobody; an owned table without demand
      Map<String, String> owners = new HashMap<>();
      owners.put(tables.get(0), "storage");
      owners.put(tables.get(1), "storage");
      owners.put(tables.get(2), "ingest");
      owners.put(tables.get(3), "ingest");
      owners.put(tables.get(4), "ingest");
      owners.put("no-such-table", "storage");
      KafkaProducer<byte[], byte[]> producer = services.producer();
      for (var e : owners.entrySet()) {
        own(producer, topics, e.getKey(), e.getValue());
      }

      StreamsBuilder builder = new StreamsBuilder();
      OwnerBacklog.buildTopology(builder, topics);
      try (KafkaStreams streams = new KafkaStreams(builder.build(), OwnerBacklog.settings(props))) {
        streams.start();
        Map<String, TeamBacklog> first = expected(fold, owners);
        assertThat(first.keySet()).containsExactlyInAnyOrder("storage", "ingest");
        awaitBacklog(services, topics, first);

        // table 4 moves to storage, table 0 loses its owner, table 5 goes to query
        own(producer, topics, tables.get(4), "storage");
        owners.put(tables.get(4), "storage");
        own(producer, topics, tables.get(0), null);
        owners.remove(tables.get(0));
        own(producer, topics, tables.get(5), "query");
        owners.put(tables.get(5), "query");
        Map<String, TeamBacklog> second = expected(fold, owners);
        assertThat(second).isNotEqualTo(first);
        awaitBacklog(services, topics, second);

        // more demand on table 2 (a new shard far behind), and query owns nothing any more
        List<DemandEvent> more =
            List.of(new DemandEvent(tables.get(2), Events.writer("shard-new", 50, 1, 50_000)));
        h.produce(more, rnd);
        events.addAll(more);
        Fold grown = Harness.fold(events);
        own(producer, topics, tables.get(5), null);
        owners.remove(tables.get(5));
        Map<String, TeamBacklog> third = expected(grown, owners);
        assertThat(third).doesNotContainKey("query").isNotEqualTo(expected(fold, owners));
        awaitBacklog(services, topics, third);
        streams.close(Duration.ofSeconds(30));
        streams.cleanUp();
      }
      OwnerBacklog.deleteTree(state);
    }
  }

  /** Each team's backlog by the offline fold: the owned tables that have demand. */
  private static Map<String, TeamBacklog> expected(Fold fold, Map<String, String> owners) {
    Map<String, TeamBacklog> out = new TreeMap<>();
    for (String table : fold.targets().keySet()) {
      String team = owners.get(table);
      if (team != null) {
        TableView v = fold.table(table);
        TeamBacklog b = out.getOrDefault(team, new TeamBacklog(team, 0, 0, 0));
        out.put(
            team,
            new TeamBacklog(
                team,
                b.tables() + 1,
                b.pendingGenerations() + v.pendingGenerations(),
                b.pendingBytes() + v.pendingBytes()));
      }
    }
    return out;
  }

  /** Sets (or with null, deletes) the owner of {@code table}. */
  private static void own(
      KafkaProducer<byte[], byte[]> producer, Topics topics, String table, String team)
      throws Exception {
    producer
        .send(
            new ProducerRecord<>(
                topics.owners(),
                table.getBytes(StandardCharsets.UTF_8),
                team == null ? null : team.getBytes(StandardCharsets.UTF_8)))
        .get(30, TimeUnit.SECONDS);
  }

  /** Waits until the latest value per team of the output topic equals {@code want}. */
  private static void awaitBacklog(Services services, Topics topics, Map<String, TeamBacklog> want)
      throws InterruptedException {
    Harness.awaitEquals(
        "the backlog per team in " + topics.backlog(),
        () -> backlog(services, topics),
        want,
        Harness.PATIENCE);
  }

  /** The latest value per team; a tombstone removes the team. */
  private static Map<String, TeamBacklog> backlog(Services services, Topics topics) {
    Map<String, TeamBacklog> out = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r : services.readAll(topics.backlog())) {
      String team = new String(r.key(), StandardCharsets.UTF_8);
      if (r.value() == null) {
        out.remove(team);
      } else {
        out.put(team, TeamBacklog.parse(r.value()));
      }
    }
    return out;
  }
}
