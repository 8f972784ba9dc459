package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code demandfold run} in child JVMs killed with SIGKILL mid-stream loses nothing: etcd ends
 * equal to the offline fold of every valid event, and the DLQ holds exactly the bad ones.
 *
 * <p>A SIGKILLed instance cannot leave its consumer group, so the group waits for its session to
 * time out before it hands the partitions on (45 s by default). The children run with {@code
 * kafka.session.timeout.ms=6000} (and heartbeats every 1.5 s) to keep each recovery short; a clean
 * stop (SIGTERM) leaves the group at once and needs no such setting.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class ProcessorKillIT {
  private static final int EVENTS = 200_000;
  private static final int KILLS = 5;
  private static final Duration PATIENCE = Duration.ofSeconds(180);

  @Test
  void shouldEndExactAfterFiveSigkillsDuringATwoHundredThousandEventStream(
      Services services, @TempDir Path work) throws Exception {
    long started = System.nanoTime();
    Random rnd = new Random(20261130);
    try (Harness h = new Harness(services, "sigkill")) {
      FleetStream stream = FleetStream.of(rnd, EVENTS, 25, 8, 1000);
      Map<String, String> settings =
          childSettings(h, Files.createDirectories(work.resolve("state")));
      List<String> recoveries = new ArrayList<>();
      ChildProcessor p = ChildProcessor.start(settings, work.resolve("run-0.log"));
      try {
        p.explaining(() -> h.awaitTopicCreated(h.eventsTopic, PATIENCE));
        CompletableFuture<Void> producing = stream.produceAsync(h, rnd, 6_000);
        long total = EVENTS + stream.bad.size();
        long[] thresholds = killPoints(rnd, total);
        for (int i = 0; i < KILLS; i++) {
          long at = thresholds[i];
          String before = "kill " + (i + 1) + ": " + at + " records committed";
          p.explaining(() -> Harness.await(before, () -> committed(h), c -> c >= at, PATIENCE));
          p.kill();
          long killedAt = committed(h);
          long t0 = System.nanoTime();
          if (i == 2) {
            // once from an empty state directory: the stores are restored from their changelogs
            settings.put(
                "kafka.state.dir", Files.createDirectories(work.resolve("empty-state")).toString());
          }
          p = ChildProcessor.start(settings, work.resolve("run-" + (i + 1) + ".log"));
          ChildProcessor current = p;
          // a kill after the last commit leaves nothing to make progress on
          String after = "restarted processor " + (i + 1) + ": progress past " + killedAt;
          current.explaining(
              () ->
                  Harness.await(
                      after, () -> committed(h), c -> c > killedAt || c >= total, PATIENCE));
          recoveries.add(
              String.format(
                  "kill %d at %d records committed%s: %s",
                  i + 1,
                  killedAt,
                  i == 2 ? " (restart from an empty state dir)" : "",
                  killedAt >= total
                      ? "every record was committed before the kill"
                      : String.format(
                          "progress again after %.1f s", (System.nanoTime() - t0) / 1e9)));
          assertThat(current.isAlive())
              .as("restarted processor %d:%n%s", i + 1, current.output())
              .isTrue();
        }
        producing.get(5, TimeUnit.MINUTES);
        // after the last restart: table records follow the shard records (issue 21 item 7)
        long tablesLagMs =
            p.explaining(
                () ->
                    Faults.tablesAfterShardsMs(
                        services.etcdClient().getKVClient(), h.layout(), stream.fold(), PATIENCE));
        System.out.printf(
            "ProcessorKillIT: table records equal %d ms after shard records%n", tablesLagMs);
        Faults.Outcome outcome = Faults.Outcome.await(services, h, stream, PATIENCE);

        recoveries.forEach(r -> System.out.println("ProcessorKillIT: " + r));
        System.out.printf(
            "ProcessorKillIT figures: faults=%d SIGKILLs of the processor, %s, %.0f s%n",
            KILLS, outcome.figures(), (System.nanoTime() - started) / 1e9);
        outcome.assertExact();
        assertThat(Faults.byReason(outcome.dlq())).isEqualTo(Faults.reasons(stream.bad));
        // a clean close, then the JVM's status for a stop by SIGTERM (README: run)
        ChildProcessor last = p;
        assertThat(last.stop(Duration.ofSeconds(60))).isEqualTo(143);
        assertThat(last.output())
            .contains("PENDING_SHUTDOWN -> NOT_RUNNING")
            .doesNotContain("stream thread failed");
      } finally {
        p.close();
      }
    }
  }

  @Test
  void shouldEndExactWhenTheSurvivorOfTwoInstancesTakesOverAfterASigkill(
      Services services, @TempDir Path work) throws Exception {
    Random rnd = new Random(20261201);
    try (Harness h = new Harness(services, "takeover-kill")) {
      FleetStream stream = FleetStream.of(rnd, 40_000, 12, 6, 500);
      Map<String, String> a = childSettings(h, Files.createDirectories(work.resolve("state-a")));
      Map<String, String> b = childSettings(h, Files.createDirectories(work.resolve("state-b")));
      try (ChildProcessor first = ChildProcessor.start(a, work.resolve("a.log"));
          ChildProcessor second = ChildProcessor.start(b, work.resolve("b.log"))) {
        first.explaining(() -> h.awaitTopicCreated(h.eventsTopic, PATIENCE));
        Harness.await("two instances in the group", () -> members(h), m -> m.size() == 2, PATIENCE);
        CompletableFuture<Void> producing = stream.produceAsync(h, rnd, 4_000);
        long total = 40_000 + stream.bad.size();
        Harness.await(
            "a third of the records committed", () -> committed(h), c -> c >= total / 3, PATIENCE);
        first.kill();
        long t0 = System.nanoTime();
        second.explaining(
            () ->
                Harness.await(
                    "the survivor alone in the group, owning the 6 event partitions",
                    () -> members(h),
                    m -> m.size() == 1 && eventPartitions(h, m) == 6,
                    PATIENCE));
        double takeover = (System.nanoTime() - t0) / 1e9;
        producing.get(5, TimeUnit.MINUTES);
        Faults.Outcome outcome = Faults.Outcome.await(services, h, stream, PATIENCE);
        System.out.printf(
            "ProcessorKillIT figures: faults=1 SIGKILL of one of two instances (the other owned all"
                + " 6 partitions %.1f s later), %s%n",
            takeover, outcome.figures());
        outcome.assertExact();
        assertThat(second.isAlive()).isTrue();
        assertThat(second.stop(Duration.ofSeconds(60))).isEqualTo(143);
        assertThat(second.output())
            .contains("PENDING_SHUTDOWN -> NOT_RUNNING")
            .doesNotContain("stream thread failed");
      }
    }
  }

  /** Settings of a child: the harness's, a state dir, and a short session (see the class doc). */
  static Map<String, String> childSettings(Harness h, Path stateDir) {
    Map<String, String> s =
        new HashMap<>(
            h.settings(
                Map.of(
                    "kafka.state.dir", stateDir.toString(),
                    "kafka.session.timeout.ms", "6000",
                    "kafka.heartbeat.interval.ms", "1500")));
    s.remove("kafka.commit.interval.ms");
    return s;
  }

  /** {@code KILLS} points in (6%, 94%) of {@code total}, one in each of as many equal slots. */
  private static long[] killPoints(Random rnd, long total) {
    long[] out = new long[KILLS];
    double from = 0.06;
    double slot = (0.94 - from) / KILLS;
    for (int i = 0; i < KILLS; i++) {
      out[i] = (long) (total * (from + slot * i + slot * (0.2 + 0.6 * rnd.nextDouble())));
    }
    return out;
  }

  private static long committed(Harness h) {
    return Faults.committed(h.services.admin(), h.name, h.eventsTopic);
  }

  private static List<MemberDescription> members(Harness h) {
    try {
      ConsumerGroupDescription d =
          h.services
              .admin()
              .describeConsumerGroups(List.of(h.name))
              .all()
              .get(10, TimeUnit.SECONDS)
              .get(h.name);
      return List.copyOf(d.members());
    } catch (Exception e) {
      return List.of();
    }
  }

  private static int eventPartitions(Harness h, List<MemberDescription> members) {
    int n = 0;
    for (MemberDescription m : members) {
      for (TopicPartition tp : m.assignment().topicPartitions()) {
        if (tp.topic().equals(h.eventsTopic)) {
          n++;
        }
      }
    }
    return n;
  }
}
