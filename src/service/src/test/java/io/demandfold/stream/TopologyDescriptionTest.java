package io.demandfold.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code topology/topology.txt} is the described topology with default settings. When the topology
 * changes on purpose, refresh the file with {@code mvn test -Dtest=TopologyDescriptionTest
 * -Dtopology.update=true} and review the diff: names of stores and internal topics are part of the
 * upgrade contract.
 */
class TopologyDescriptionTest {
  private static final Path FILE = Path.of("topology/topology.txt");

  @Test
  void shouldMatchTheCommittedDescription() throws IOException {
    String described =
        DemandTopology.build(
                StreamSettings.defaults(), null, new PipelineMetrics(new SimpleMeterRegistry()))
            .describe()
            .toString();
    if (Boolean.getBoolean("topology.update")) {
      Files.writeString(FILE, described, StandardCharsets.UTF_8);
    }
    assertThat(Files.readString(FILE, StandardCharsets.UTF_8))
        .as("topology/topology.txt is stale: see this test's Javadoc to refresh it")
        .isEqualTo(described);
  }
}
