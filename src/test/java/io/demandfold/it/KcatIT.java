package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.Fold;
import io.demandfold.core.codec.JsonCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The README's kcat example, run as written with the real kcat binary. */
@ExtendWith(ServicesExtension.class)
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
}
