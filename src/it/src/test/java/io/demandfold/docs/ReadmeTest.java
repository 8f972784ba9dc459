package io.demandfold.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README starts with the two set-up commands and indexes every page under {@code docs/}; the
 * pages hold the reference ({@link DocsTest}).
 */
class ReadmeTest {
  private static String readme() {
    return Docs.text("README.md");
  }

  @Test
  void shouldStartWithTheTwoSetUpCommands() throws IOException {
    String setUp = readme().split("## Set-up: two commands", 2)[1].split("\n## ", 2)[0];
    assertThat(setUp).contains("scripts/test").contains("./demandfold ");
    assertThat(readme().split("\n## ", 2)[1]).as("the first section").startsWith("Set-up");
    // CI runs the README's test command, with the cluster tier, and the README says so
    assertThat(Files.readString(Path.of(".ci/run")))
        .contains("exec scripts/test -Dit.cluster=true\n");
    assertThat(setUp).contains("CI (`.ci/run`) runs exactly `scripts/test -Dit.cluster=true`");
  }

  @Test
  void shouldIndexEveryPageOfDocs() throws IOException {
    String index = Docs.section("README.md", "Documentation");
    List<String> pages;
    try (Stream<Path> s = Files.list(Path.of("docs"))) {
      pages =
          s.map(p -> "docs/" + p.getFileName()).filter(p -> p.endsWith(".md")).sorted().toList();
    }
    assertThat(pages).hasSizeGreaterThanOrEqualTo(10);
    for (String page : pages) {
      assertThat(index).as("the README's index of docs/").contains("](" + page + ")");
    }
  }
}
