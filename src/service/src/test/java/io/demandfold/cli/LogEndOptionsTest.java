package io.demandfold.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.demandfold.cli.FoldCommandTest.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --as-of} and {@code --until-offsets}: the times accepted, and bad flags failing fast. */
class LogEndOptionsTest {
  // no broker listens there: a command that got past its flags would fail otherwise
  private static final String[] NOWHERE = {
    "--bootstrap-servers", "127.0.0.1:1", "--etcd-endpoints", "http://127.0.0.1:1"
  };

  @Test
  void shouldReadIsoInstantsWithZoneOrOffsetAndEpochMillis() {
    assertThat(LogEnd.parseTime("--as-of", "2026-11-29T10:00:00Z")).isEqualTo(1795946400000L);
    assertThat(LogEnd.parseTime("--as-of", "2026-11-29T11:00:00+01:00")).isEqualTo(1795946400000L);
    assertThat(LogEnd.parseTime("--as-of", "2026-11-29T10:00:00.250Z")).isEqualTo(1795946400250L);
    assertThat(LogEnd.parseTime("--as-of", "1795946400000")).isEqualTo(1795946400000L);
    assertThat(LogEnd.parseTime("--as-of", "0")).isZero();
  }

  @Test
  void shouldRejectWhatIsNotATimeNamingTheFlagAndTheAcceptedForms() {
    for (String bad :
        new String[] {
          "yesterday", "", "-5", "2026-11-29", "2026-11-29T10:00:00", "99999999999999999999", "1e9"
        }) {
      assertThatThrownBy(() -> LogEnd.parseTime("--as-of", bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("--as-of: '" + bad + "' is not a time")
          .hasMessageContaining("ISO-8601 instant")
          .hasMessageContaining("epoch milliseconds");
    }
  }

  @Test
  void shouldRefuseAsOfTogetherWithUntilOffsetsNamingBoth() {
    for (String command : new String[] {"audit", "rebuild"}) {
      Run r = run(command, "--as-of", "2026-11-29T10:00:00Z", "--until-offsets", "now");
      assertThat(r.exit()).as(command).isEqualTo(2);
      assertThat(r.err())
          .as(command)
          .contains("--as-of and --until-offsets are exclusive")
          .doesNotContain(command + ": failed");
    }
    Run fold = run("fold", "--from-topic", "--as-of", "1795946400000", "--until-offsets", "now");
    assertThat(fold.exit()).isEqualTo(2);
    assertThat(fold.err()).contains("--as-of and --until-offsets are exclusive");
  }

  @Test
  void shouldRefuseABadTimeBeforeConnectingToAnything() {
    Run audit = run("audit", "--as-of", "last tuesday");
    assertThat(audit.exit()).isEqualTo(2);
    assertThat(audit.err())
        .contains("--as-of: 'last tuesday' is not a time; give an ISO-8601 instant");
    Run inspect = run("inspect", "--target", "orders", "--as-of", "noon");
    assertThat(inspect.exit()).isEqualTo(2);
    assertThat(inspect.err()).contains("--as-of: 'noon' is not a time");
  }

  @Test
  void shouldRefuseAnUnreadableOffsetsFileAsABadFlag(@TempDir Path dir) throws Exception {
    Run missing = run("audit", "--until-offsets", dir.resolve("nope.json").toString());
    assertThat(missing.exit()).isEqualTo(2);
    assertThat(missing.err()).contains("is neither 'now' nor a readable file");
    Path array = Files.writeString(dir.resolve("array.json"), "[1,2]");
    Run notObject = run("rebuild", "--until-offsets", array.toString());
    assertThat(notObject.exit()).isEqualTo(2);
    assertThat(notObject.err()).contains("must hold a JSON object of partition to offset");
  }

  @Test
  void shouldAskForFromTopicWhenFoldIsGivenALogEnd() {
    Run asOf = run("fold", "--as-of", "1795946400000");
    assertThat(asOf.exit()).isEqualTo(2);
    assertThat(asOf.err()).contains("--as-of reads the events topic: give --from-topic too");
    Run until = run("fold", "--until-offsets", "now");
    assertThat(until.exit()).isEqualTo(2);
    assertThat(until.err()).contains("--until-offsets reads the events topic");
    Run both = run("fold", "--from-topic", "--input", "examples/named-cases.jsonl");
    assertThat(both.exit()).isEqualTo(2);
    assertThat(both.err()).contains("--input and --from-topic are exclusive");
  }

  /** Runs a command with {@code args}, its settings pointing where nothing listens. */
  private static Run run(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of(NOWHERE));
    return FoldCommandTest.run(all.toArray(String[]::new));
  }
}
