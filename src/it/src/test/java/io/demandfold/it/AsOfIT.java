package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.core.codec.ViewJson;
import io.demandfold.mirror.EtcdLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --as-of}: events stamped across three hours on a real broker; {@code inspect}, {@code fold
 * --from-topic}, {@code rebuild} and {@code audit} as of a time see exactly the offline fold of the
 * events stamped before it.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class AsOfIT {
  private static final long HOUR = 3_600_000L;

  /** 2025-11-29T00:00:00Z; the events are stamped in the three hours after it. */
  private static final long T0 = 1_764_374_400_000L;

  @Test
  void shouldSeeTheFoldOfTheEventsStampedBeforeEachTime(Services services, @TempDir Path dir)
      throws Exception {
    try (Harness h = new Harness(services, "asof")) {
      services.createTopic(h.eventsTopic, 6, Map.of("retention.ms", "-1"));
      h.awaitTopicReady(h.eventsTopic);
      Random rnd = new Random(15);
      List<DemandEvent> events = RandomStreams.stream(rnd, "asof", 3, 12, 1200);
      long[] stamps = new long[events.size()];
      for (int i = 0; i < events.size(); i++) {
        stamps[i] = T0 + i * (3 * HOUR) / events.size();
      }
      // a half hour at a time, each acknowledged before the next is sent, so that within a
      // partition the stamps never go back across a half-hour boundary (a re-sent record could
      // otherwise land after a later one)
      int i = 0;
      for (long slice = T0 + HOUR / 2; slice <= T0 + 3 * HOUR; slice += HOUR / 2) {
        for (; i < events.size() && stamps[i] < slice; i++) {
          DemandEvent e = events.get(i);
          byte[] value = rnd.nextBoolean() ? JsonCodec.encodeEvent(e) : AvroCodec.encodeEvent(e);
          h.produceAt(e.key().getBytes(StandardCharsets.UTF_8), value, stamps[i]);
        }
        h.flush();
      }
      assertThat(i).isEqualTo(events.size());

      Fold all = Harness.fold(events);
      List<String> targets = new ArrayList<>(all.targets().keySet());
      assertThat(targets).hasSize(3);
      long[] times = {T0 + HOUR, T0 + HOUR + HOUR / 2, T0 + 2 * HOUR, T0 + 3 * HOUR};
      Map<Long, Fold> expected = new TreeMap<>();
      for (long t : times) {
        expected.put(t, before(events, stamps, t));
      }
      for (String target : targets) {
        // every time sees a different demand of every target: a command that ignored --as-of
        // would fail below
        assertThat(
                expected.values().stream()
                    .map(f -> ViewJson.tableLine(target, f.table(target)))
                    .distinct()
                    .count())
            .as(target)
            .isEqualTo(times.length);
      }

      for (int k = 0; k < times.length; k++) {
        long t = times[k];
        // ISO-8601 and epoch milliseconds in turn
        String asOf = k % 2 == 0 ? Instant.ofEpochMilli(t).toString() : Long.toString(t);
        for (String target : targets) {
          Cli json = kafkaOnly(h, "inspect", "--target", target, "--json", "--as-of", asOf);
          assertThat(json.exit()).as(json.err()).isZero();
          assertThat(json.out())
              .as(target + " as of " + asOf)
              .isEqualTo(lines(expected.get(t), target));
        }
      }

      String target = targets.get(0);
      Fold atTwo = expected.get(T0 + 2 * HOUR);
      Cli table = kafkaOnly(h, "inspect", "--target", target, "--as-of", "2025-11-29T02:00:00Z");
      assertThat(table.exit()).as(table.err()).isZero();
      assertThat(table.out())
          .contains("SHARD")
          .contains(
              "table "
                  + target
                  + ": "
                  + atTwo.shards(target).size()
                  + " shards, "
                  + atTwo.table(target).pendingGenerations()
                  + " pending generations, "
                  + atTwo.table(target).pendingBytes()
                  + " pending bytes");
      assertThat(table.err()).contains("as of 2025-11-29T02:00:00Z");

      Cli before = kafkaOnly(h, "inspect", "--target", target, "--as-of", Long.toString(T0));
      assertThat(before.exit()).isEqualTo(1);
      assertThat(before.err())
          .contains(
              "no event of target '"
                  + target
                  + "' in "
                  + h.eventsTopic
                  + " as of 2025-11-29T00:00:00Z");

      // fold --from-topic --as-of equals fold --input of the events stamped before that time
      Path upToTwo = dir.resolve("up-to-two.jsonl");
      List<String> jsonLines = new ArrayList<>();
      for (int j = 0; j < events.size() && stamps[j] < T0 + 2 * HOUR; j++) {
        jsonLines.add(new String(JsonCodec.encodeEvent(events.get(j)), StandardCharsets.UTF_8));
      }
      Files.write(upToTwo, jsonLines);
      Cli offline = Cli.run(List.of("fold", "--input", upToTwo.toString()));
      assertThat(offline.exit()).as(offline.err()).isZero();
      Cli fromTopic = kafkaOnly(h, "fold", "--from-topic", "--as-of", "2025-11-29T02:00:00Z");
      assertThat(fromTopic.exit()).as(fromTopic.err()).isZero();
      assertThat(fromTopic.out()).isEqualTo(offline.out()).isEqualTo(lines(atTwo));
      Cli now = kafkaOnly(h, "fold", "--from-topic");
      assertThat(now.out()).isEqualTo(lines(all));

      // rebuild a prefix as of 02:00, then audit it as of then (identical) and of other times
      String asOfTwo = "--as-of=2025-11-29T02:00:00Z";
      String then = "/" + services.uniqueName("asof-then");
      Cli rebuilt = withEtcd(h, "rebuild", "--prefix", then, asOfTwo);
      assertThat(rebuilt.exit()).as(rebuilt.err()).isZero();
      assertThat(rebuilt.out())
          .contains("as of 2025-11-29T02:00:00Z")
          .contains("wrote " + (atTwo.shardCount() + atTwo.targets().size()));
      Map<String, String> written = new TreeMap<>();
      h.etcdValues(then + "/")
          .forEach((k, v) -> written.put(then + "/" + k, new String(v, StandardCharsets.UTF_8)));
      assertThat(written).isEqualTo(Harness.expectedEtcd(atTwo, new EtcdLayout(then)));

      Cli identical = withEtcd(h, "audit", "--prefix", then, asOfTwo);
      assertThat(identical.exit()).as(identical.out() + identical.err()).isZero();
      assertThat(identical.out())
          .contains("audit: IDENTICAL")
          .contains("as of 2025-11-29T02:00:00Z");
      Cli later = withEtcd(h, "audit", "--prefix", then);
      assertThat(later.exit()).isEqualTo(1);
      assertThat(later.out()).contains("audit: DIVERGENT");
      Cli earlier = withEtcd(h, "audit", "--prefix", then, "--as-of", Long.toString(T0 + HOUR));
      assertThat(earlier.exit()).isEqualTo(1);
      assertThat(earlier.out()).contains("audit: DIVERGENT");
    }
  }

  /** The offline fold of the events stamped before {@code t}. */
  private static Fold before(List<DemandEvent> events, long[] stamps, long t) {
    Fold f = new Fold();
    for (int i = 0; i < events.size(); i++) {
      if (stamps[i] < t) {
        f.add(events.get(i));
      }
    }
    return f;
  }

  /** What {@code inspect --json} prints for {@code target} of {@code fold}. */
  private static String lines(Fold fold, String target) {
    StringBuilder sb = new StringBuilder();
    for (ShardRecord r : fold.shards(target).values()) {
      sb.append(ViewJson.shardLine(target, r)).append('\n');
    }
    return sb.append(ViewJson.tableLine(target, fold.table(target))).append('\n').toString();
  }

  /** What {@code fold} prints for {@code fold}. */
  private static String lines(Fold fold) {
    StringBuilder sb = new StringBuilder();
    for (String target : fold.targets().keySet()) {
      sb.append(lines(fold, target));
    }
    return sb.toString();
  }

  /** A command with Kafka settings only: no etcd endpoint. */
  private static Cli kafkaOnly(Harness h, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(
        List.of(
            "--bootstrap-servers",
            h.services.bootstrapServers(),
            "--set",
            "topics.events=" + h.eventsTopic));
    return Cli.run(all);
  }

  private static Cli withEtcd(Harness h, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--etcd-endpoints", h.services.etcdEndpoint()));
    return kafkaOnly(h, all.toArray(String[]::new));
  }
}
