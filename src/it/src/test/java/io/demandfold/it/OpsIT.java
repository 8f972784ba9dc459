package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import io.demandfold.core.Keys;
import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** The operator commands against a pipeline that ran on a real broker and a real etcd. */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class OpsIT {

  @Test
  void shouldAuditRebuildAndInspect(Services services) throws Exception {
    try (Harness h = new Harness(services, "ops")) {
      Random rnd = new Random(11);
      List<DemandEvent> events = RandomStreams.stream(rnd, "ops", 3, 12, 1500);
      Fold expected = Harness.fold(events);
      h.start();
      h.produce(events, rnd);
      h.awaitEtcd(expected);

      Cli identical = cli(h, "audit");
      assertThat(identical.exit()).as(identical.err()).isZero();
      assertThat(identical.out())
          .contains("audit: IDENTICAL")
          .contains("0 missing, 0 extra, 0 different");
      assertThat(identical.err())
          .contains("audit: " + String.format("%,d", events.size()) + " events");

      String target = expected.targets().firstKey();
      String shard = expected.shards(target).firstKey();
      String key = h.layout().shardKey(Keys.shardKey(target, shard));
      String altered =
          "{\"v\":1,\"shard\":\""
              + shard
              + "\",\"sealed_through\":1,\"sealed_bytes_through\":0,\"merged_through\":null,"
              + "\"flushed_at_ms\":1,\"writer_epoch\":1,\"source\":\"writer\"}";
      services.etcdClient().getKVClient().put(bytes(key), bytes(altered)).get(10, TimeUnit.SECONDS);
      Cli divergent = cli(h, "audit");
      assertThat(divergent.exit()).isEqualTo(1);
      assertThat(divergent.out())
          .contains("different " + key + "\n")
          .contains("  actual:   " + altered)
          .contains("audit: DIVERGENT")
          .contains("1 different");
      assertThat(divergent.out().lines().filter(l -> l.startsWith("different ")).count())
          .isEqualTo(1);
      assertThat(divergent.out()).doesNotContain("missing /").doesNotContain("extra /");

      String fresh = "/" + services.uniqueName("rebuilt");
      Cli dry = cli(h, "rebuild", "--prefix", fresh, "--dry-run");
      assertThat(dry.exit()).isZero();
      assertThat(dry.out())
          .contains("(dry run)")
          .contains("would write " + (expected.shardCount() + expected.targets().size()));
      Cli rebuilt = cli(h, "rebuild", "--prefix", fresh);
      assertThat(rebuilt.exit()).as(rebuilt.err()).isZero();
      assertThat(rebuilt.out())
          .contains("wrote " + (expected.shardCount() + expected.targets().size()))
          .contains("failed 0");
      Cli again = cli(h, "audit", "--prefix", fresh);
      assertThat(again.exit()).as(again.out()).isZero();
      assertThat(again.out()).contains("audit: IDENTICAL");

      Cli inspect = cli(h, "inspect", "--target", target, "--prefix", fresh);
      assertThat(inspect.exit()).isZero();
      assertThat(inspect.out())
          .contains("SHARD")
          .contains(
              "table "
                  + target
                  + ": "
                  + expected.shards(target).size()
                  + " shards, "
                  + expected.table(target).pendingGenerations()
                  + " pending generations");
      Cli json = cli(h, "inspect", "--target", target, "--json", "--prefix", fresh);
      assertThat(json.out().lines().count()).isEqualTo(expected.shards(target).size() + 1);
      Cli none = cli(h, "inspect", "--target", "no-such-table");
      assertThat(none.exit()).isEqualTo(1);
      assertThat(none.err()).contains("no record of target 'no-such-table'");
    }
  }

  @Test
  void shouldPublishFromFlagsAndFromStdinAndRejectBadFlags(Services services) throws Exception {
    try (Harness h = new Harness(services, "publish")) {
      h.start();
      Cli ok =
          cli(
              h,
              "publish",
              "--target",
              "orders",
              "--shard",
              "s1",
              "--sealed-through",
              "4",
              "--writer-epoch",
              "2",
              "--flushed-at-ms",
              "4000",
              "--sealed-time",
              "3=3000");
      assertThat(ok.exit()).as(ok.err()).isZero();
      assertThat(ok.out()).startsWith("published 6f7264657273/s1 to " + h.eventsTopic + "-");
      Cli bad = cli(h, "publish", "--target", "orders", "--shard", "s1", "--sealed-through", "-4");
      assertThat(bad.exit()).isEqualTo(2);
      assertThat(bad.err()).contains("field 'sealed_through' is -4; must be >= 0");
      Cli missing = cli(h, "publish", "--target", "orders");
      assertThat(missing.exit()).isEqualTo(2);
      assertThat(missing.err()).contains("missing --shard");
      Cli source =
          cli(
              h,
              "publish",
              "--target",
              "o",
              "--shard",
              "s",
              "--sealed-through",
              "1",
              "--source",
              "planner");
      assertThat(source.exit()).isEqualTo(2);
      assertThat(source.err()).contains("--source must be writer, executor or scan");

      Fold expected = new Fold();
      expected.add(
          new DemandEvent(
              "orders",
              io.demandfold.core.ShardRecord.builder("s1")
                  .sealedThrough(4)
                  .writerEpoch(2)
                  .flushedAtMs(4000)
                  .source(io.demandfold.core.Source.WRITER)
                  .sealedTime(3, 3000)
                  .build()));
      h.awaitEtcd(expected);
    }
  }

  private static Cli cli(Harness h, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(
        List.of(
            "--bootstrap-servers", h.services.bootstrapServers(),
            "--etcd-endpoints", h.services.etcdEndpoint(),
            "--set", "topics.events=" + h.eventsTopic));
    if (!all.contains("--prefix") && !args[0].equals("publish")) {
      all.addAll(List.of("--prefix", h.prefix));
    }
    return Cli.run(all);
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
