package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.demandfold.app.DemandfoldService;
import io.demandfold.config.DemandfoldConfig;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Events;
import io.demandfold.core.Fold;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.Source;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.core.codec.ViewJson;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new {@code application.id} against output topics another id wrote, and more partitions for the
 * events topic: what happens, what is refused, and the procedure of docs/operations.md "Growing the
 * events topic", end to end on a real broker and etcd.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class PartitionGrowthIT {
  private static final long T = 1_764_400_000_000L;

  /** Topic definitions with {@code partitions} partitions of the events topic. */
  private static Path topics(Path dir, int partitions) throws Exception {
    Path file = dir.resolve("topics-" + partitions + ".properties");
    Files.writeString(
        file,
        Files.readString(Path.of("topology/topics.properties"))
            .replace("events.partitions=6", "events.partitions=" + partitions));
    return file;
  }

  private static List<DemandEvent> events(Random rnd, int n, long from) {
    List<DemandEvent> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long g = from + i;
      out.add(
          new DemandEvent(
              "table-" + rnd.nextInt(4),
              Events.writer("s" + rnd.nextInt(6), g, 1, T + g * 1000).toBuilder()
                  .sealedTime(g, T + g * 1000)
                  .build()));
    }
    return out;
  }

  private static void produce(Harness h, String topic, List<DemandEvent> events) throws Exception {
    for (DemandEvent e : events) {
      h.produceRawTo(
          topic, e.key().getBytes(StandardCharsets.UTF_8), JsonCodec.encodeEvent(e), List.of());
    }
    h.flush();
  }

  @Test
  void shouldRefuseANewApplicationIdThatWouldReplayIntoTheOutputsOfAnother(Services services)
      throws Exception {
    try (Harness h = new Harness(services, "new-id")) {
      DemandfoldService a = h.start();
      List<DemandEvent> sent = events(new Random(61), 60, 1);
      produce(h, h.eventsTopic, sent);
      h.awaitEtcd(Harness.fold(sent));
      Faults.awaitAllCommitted(services.admin(), h.name, h.eventsTopic, Harness.PATIENCE);
      h.stop(a);
      assertThat(h.latest(h.name + ".shard-records")).isNotEmpty();

      String other = h.name + "-other";
      assertThatThrownBy(() -> h.start(Map.of(DemandfoldConfig.APPLICATION_ID, other)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("application.id '" + other + "' is new")
          .hasMessageContaining("topics.shard.records '" + h.name + ".shard-records' already holds")
          .hasMessageContaining("topics.outputs.replay=true")
          .message()
          .as("one line naming the settings")
          .doesNotContain("\n");

      // the id that wrote them starts again and goes on
      DemandfoldService again = h.start();
      List<DemandEvent> more = events(new Random(62), 20, 100);
      produce(h, h.eventsTopic, more);
      List<DemandEvent> all = new ArrayList<>(sent);
      all.addAll(more);
      h.awaitEtcd(Harness.fold(all));
      h.stop(again);

      // with the setting the new id replays into them, and ends where the old one was
      DemandfoldService b =
          h.start(
              Map.of(
                  DemandfoldConfig.APPLICATION_ID,
                  other,
                  DemandfoldConfig.TOPICS_OUTPUTS_REPLAY,
                  "true"));
      Faults.awaitAllCommitted(services.admin(), other, h.eventsTopic, Harness.PATIENCE);
      h.awaitEtcd(Harness.fold(all));
      assertThat(b.failure()).isNull();
    }
  }

  /**
   * Partitions added to the events topic in place: the running instances do not read them until
   * they refresh their metadata ({@code metadata.max.age.ms}, 5 minutes by default), then every
   * instance stops ("Existing internal topic ... has invalid partitions"); a restart of that id is
   * refused with the way out. docs/operations.md "Growing the events topic": a new application id
   * replays the grown topic, and the events of a shard whose key now hashes to another partition
   * than its earlier events go through the misrouted topic to the one task that folds that shard,
   * so etcd and both output topics end exactly at the fold of every event.
   */
  @Test
  void shouldGrowTheEventsTopicInPlaceUnderANewApplicationId(Services services, @TempDir Path dir)
      throws Exception {
    try (Harness h =
        new Harness(services, "grow", Map.of(ProducerConfig.METADATA_MAX_AGE_CONFIG, 500))) {
      Map<String, String> two =
          Map.of(
              DemandfoldConfig.TOPICS_DEFINITIONS,
              topics(dir, 2).toString(),
              "kafka.metadata.max.age.ms",
              "1000");
      DemandfoldService a = h.start(two);
      List<String> moved = new ArrayList<>();
      for (int i = 0; moved.size() < 3; i++) {
        byte[] key = Keys.shardKey("orders", "s" + i).getBytes(StandardCharsets.UTF_8);
        int hash = Utils.toPositive(Utils.murmur2(key));
        if (hash % 2 != hash % 4) {
          moved.add("s" + i);
        }
      }
      List<DemandEvent> all = new ArrayList<>(events(new Random(71), 150, 1));
      for (String shard : moved) {
        for (int g = 1; g <= 10; g++) {
          all.add(
              new DemandEvent(
                  "orders",
                  Events.writer(shard, g, 1, T + g).toBuilder().sealedTime(g, T + g).build()));
        }
      }
      produce(h, h.eventsTopic, all);
      h.produceRawTo(
          h.eventsTopic,
          "6f7264657273/s1".getBytes(StandardCharsets.UTF_8),
          "not an event".getBytes(StandardCharsets.UTF_8),
          List.of());
      h.flush();
      h.awaitEtcd(Harness.fold(all));

      services
          .admin()
          .createPartitions(Map.of(h.eventsTopic, NewPartitions.increaseTo(4)))
          .all()
          .get(30, TimeUnit.SECONDS);
      Harness.await(
          "the producer to see 4 partitions",
          () -> h.partitionsSeen(h.eventsTopic),
          n -> n == 4,
          Harness.PATIENCE);
      // the moved shards' next events land on their new partitions
      List<DemandEvent> after = new ArrayList<>(events(new Random(72), 50, 1000));
      for (String shard : moved) {
        after.add(
            new DemandEvent(
                "orders",
                ShardRecord.builder(shard)
                    .sealedThrough(12)
                    .mergedThrough(5L)
                    .writerEpoch(1)
                    .flushedAtMs(T + 20)
                    .source(Source.EXECUTOR)
                    .build()));
      }
      produce(h, h.eventsTopic, after);
      all.addAll(after);
      Throwable failure =
          Harness.await(
              "the instance to stop on the grown topic",
              a::failure,
              Objects::nonNull,
              Harness.PATIENCE);
      assertThat(failure.getMessage()).contains("has invalid partitions");
      h.stop(a);

      assertThatThrownBy(() -> h.start(two))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("topics.events '" + h.eventsTopic + "' has 4 partitions")
          .hasMessageContaining("built on 2")
          .hasMessageContaining("Growing the events topic")
          .message()
          .as("one line")
          .doesNotContain("\n");

      // the procedure: a new application id, into the same outputs and etcd prefix
      String v2 = h.name + "-v2";
      DemandfoldService b =
          h.start(
              Map.of(
                  DemandfoldConfig.APPLICATION_ID,
                  v2,
                  DemandfoldConfig.TOPICS_OUTPUTS_REPLAY,
                  "true"));
      Fold expected = Harness.fold(all);
      Faults.awaitAllCommitted(services.admin(), v2, h.eventsTopic, Harness.PATIENCE);
      h.awaitEtcd(expected);
      assertThat(b.failure()).isNull();
      assertThat(b.metrics().misroutedCount())
          .as("events of moved shards sent on to their shard's task")
          .isGreaterThan(0);

      Map<String, String> want = new HashMap<>();
      Map<String, String> wantTables = new HashMap<>();
      for (var t : expected.targets().entrySet()) {
        for (ShardRecord r : t.getValue().values()) {
          want.put(Keys.shardKey(t.getKey(), r.shard()), ViewJson.shardLine(t.getKey(), r));
        }
        wantTables.put(
            Keys.hex(t.getKey()), ViewJson.tableLine(t.getKey(), expected.table(t.getKey())));
      }
      Harness.awaitEquals(
          "the shard lines", () -> h.latest(h.name + ".shard-records"), want, Harness.PATIENCE);
      Harness.awaitEquals(
          "the table lines",
          () -> h.latest(h.name + ".table-demand"),
          wantTables,
          Harness.PATIENCE);
      Cli audit =
          Cli.run(
              List.of(
                  "audit",
                  "--bootstrap-servers",
                  services.bootstrapServers(),
                  "--etcd-endpoints",
                  services.etcdEndpoint(),
                  "--set",
                  "topics.events=" + h.eventsTopic,
                  "--prefix",
                  h.prefix));
      assertThat(audit.out()).as(audit.err()).contains("audit: IDENTICAL");
    }
  }
}
