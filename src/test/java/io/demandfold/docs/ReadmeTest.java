package io.demandfold.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.cli.Main;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
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
}
