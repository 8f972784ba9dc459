package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.Fold;
import io.demandfold.core.codec.JsonCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** The README's kcat example, run as written with the real kcat binary. */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class KcatIT {
  private static final String BEGIN = "<!-- kcat-example -->";
  private static final String END = "<!-- /kcat-example -->";

  @Test
  void shouldFoldEventsProducedWithKcatExactlyAsTheReadmeShows(Services services) throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    String block = readme.substring(readme.indexOf(BEGIN) + BEGIN.length(), readme.indexOf(END));
    String script = block.substring(block.indexOf("```sh") + 5, block.lastIndexOf("```")).trim();
    assertThat(script).contains("kcat -P").contains("demand.events");

    try (Harness h = new Harness(services, "kcat")) {
      h.start();
      String run = script.replace("demand.events", h.eventsTopic);
      ProcessBuilder pb = new ProcessBuilder("sh", "-c", run).redirectErrorStream(true);
      pb.environment().put("BOOTSTRAP", services.bootstrapServers());
      Process p = pb.start();
      p.getOutputStream().close();
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as(output).isZero();

      Fold expected = new Fold();
      for (String line : script.split("\n")) {
        int start = line.indexOf('{');
        if (start >= 0) {
          String json = line.substring(start, line.lastIndexOf('}') + 1);
          expected.add(JsonCodec.decodeEvent(json.getBytes(StandardCharsets.UTF_8)));
        }
      }
      assertThat(expected.events()).isEqualTo(2);
      h.awaitEtcd(expected);
    }
  }

  /**
   * kcat's default partitioner (consistent_random) puts a key elsewhere than Java clients do: half
   * of each shard's events through kcat, half through the Java producer, and no shard may be folded
   * in two halves: the shard-records topic and etcd end equal to the offline fold.
   */
  @Test
  void shouldFoldAShardWhoseEventsArriveOnTwoPartitionsAsOne(Services services) throws Exception {
    try (Harness h = new Harness(services, "kcat-split")) {
      java.util.Random rnd = new java.util.Random(21);
      java.util.List<io.demandfold.core.DemandEvent> events =
          RandomStreams.stream(rnd, "k", 2, 12, 600);
      Fold expected = Harness.fold(events);
      var service = h.start();
      StringBuilder viaKcat = new StringBuilder();
      java.util.List<io.demandfold.core.DemandEvent> viaJava = new java.util.ArrayList<>();
      for (int i = 0; i < events.size(); i++) {
        io.demandfold.core.DemandEvent e = events.get(i);
        if (i % 2 == 0) {
          viaKcat
              .append(e.key())
              .append('|')
              .append(new String(JsonCodec.encodeEvent(e), StandardCharsets.UTF_8))
              .append('\n');
        } else {
          viaJava.add(e);
        }
      }
      Process p =
          new ProcessBuilder(
                  "kcat", "-P", "-b", services.bootstrapServers(), "-t", h.eventsTopic, "-K", "|")
              .redirectErrorStream(true)
              .start();
      p.getOutputStream().write(viaKcat.toString().getBytes(StandardCharsets.UTF_8));
      p.getOutputStream().close();
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as(output).isZero();
      h.produce(viaJava, rnd);

      h.awaitEtcd(expected);
      assertThat(service.metrics().misroutedCount())
          .as("kcat put some keys elsewhere than the Java clients do")
          .isPositive();
      java.util.Map<String, String> lines = new java.util.TreeMap<>();
      for (var t : expected.targets().entrySet()) {
        for (io.demandfold.core.ShardRecord r : t.getValue().values()) {
          lines.put(
              io.demandfold.core.Keys.shardKey(t.getKey(), r.shard()),
              io.demandfold.core.codec.ViewJson.shardLine(t.getKey(), r));
        }
      }
      Harness.awaitEquals(
          "the shard lines", () -> h.latest(h.name + ".shard-records"), lines, Harness.PATIENCE);
    }
  }
}
