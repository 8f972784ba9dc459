package io.demandfold.dev;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The flags of {@code local} that name existing services. */
class LocalCommandTest {

  @Test
  void shouldTakeAnExistingBrokerAsBootstrapServersLikeEveryOtherCommand() {
    LocalCommand local = new LocalCommand();
    new CommandLine(local).parseArgs("--bootstrap-servers", "127.0.0.1:9092");
    assertThat(local.bootstrapServers).isEqualTo("127.0.0.1:9092");
  }

  @Test
  void shouldStillAcceptTheOldFlagWithoutShowingIt() {
    LocalCommand local = new LocalCommand();
    CommandLine cli = new CommandLine(local);
    cli.parseArgs("--kafka-bootstrap", "127.0.0.1:9092");
    assertThat(local.deprecatedKafkaBootstrap).isEqualTo("127.0.0.1:9092");

    StringWriter help = new StringWriter();
    cli.usage(new PrintWriter(help));
    assertThat(help.toString()).contains("--bootstrap-servers").doesNotContain("--kafka-bootstrap");
  }
}
