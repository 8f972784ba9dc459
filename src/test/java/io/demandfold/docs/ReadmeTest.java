package io.demandfold.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.cli.Main;
import io.demandfold.stream.PipelineMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The README stays true to the code. */
class ReadmeTest {
  private static String readme() throws IOException {
    return Files.readString(Path.of("README.md"));
  }

  @Test
  void shouldCarryTheSettingsTableExactlyAsDeclared() throws IOException {
    StringWriter out = new StringWriter();
    CommandLine cl = Main.commandLine();
    cl.setOut(new PrintWriter(out, true));
    assertThat(cl.execute("settings")).isZero();
    assertThat(readme()).contains(out.toString());
  }

  @Test
  void shouldStartWithTheTwoSetUpCommands() throws IOException {
    String setUp = readme().split("## Set-up: two commands", 2)[1].split("\n## ", 2)[0];
    assertThat(setUp).contains("scripts/test").contains("./demandfold ");
    assertThat(Files.readString(Path.of(".ci/run"))).contains("exec scripts/test");
  }

  @Test
  void shouldDocumentEveryPipelineAndMirrorMeterInTheMetricsTable() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new PipelineMetrics(registry);
    List<String> documented = Readme.metrics().stream().map(Readme.Metric::name).toList();
    List<String> exposed =
        registry
            .scrape()
            .lines()
            .filter(l -> l.startsWith("# TYPE "))
            .map(l -> l.split(" ")[2])
            .toList();
    assertThat(exposed).hasSizeGreaterThanOrEqualTo(6);
    assertThat(documented).containsAll(exposed);
  }
}
