package io.demandfold.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** docs/consumers.md shows the scheduler example exactly as the test runs it. */
class ConsumersDocTest {
  private static final String SOURCE = "src/it/src/test/java/io/demandfold/examples/DueTables.java";

  @Test
  void shouldShowTheExampleThatSchedulerExampleItRuns() {
    String page = Docs.text("docs/consumers.md");
    String shown =
        page.split("<!-- example: " + SOURCE + " -->\n```java\n", 2)[1].split("\n```", 2)[0];
    String region =
        Docs.text(SOURCE).split("  // example:begin\n", 2)[1].split("  // example:end", 2)[0];
    String outdented =
        Arrays.stream(region.split("\n"))
            .map(l -> l.startsWith("  ") ? l.substring(2) : l)
            .collect(Collectors.joining("\n"));
    assertThat(shown).isEqualTo(outdented);
  }
}
