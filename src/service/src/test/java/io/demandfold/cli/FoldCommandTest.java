package io.demandfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code demandfold fold} over the shipped example answers every named case of docs/model.md
 * section 10.
 */
class FoldCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path EXAMPLE = Path.of("examples/named-cases.jsonl");
  private static Map<String, JsonNode> shards;
  private static Map<String, JsonNode> tables;

  record Run(int exit, String out, String err) {}

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = Main.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int exit = cl.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  @BeforeAll
  static void foldTheExample() throws IOException {
    Run r = run("fold", "--input", EXAMPLE.toString());
    assertThat(r.exit()).isZero();
    shards = new HashMap<>();
    tables = new HashMap<>();
    for (String line : r.out().split("\n")) {
      JsonNode n = JSON.readTree(line);
      (n.get("kind").asText().equals("shard") ? shards : tables).put(n.get("target").asText(), n);
    }
  }

  @Test
  void shouldAnswerMergedSurvivesEpochChange() {
    JsonNode s = shards.get("merged-survives-epoch-change");
    assertThat(s.at("/record/writer_epoch").asLong()).isEqualTo(2);
    assertThat(s.at("/record/sealed_through").asLong()).isEqualTo(60);
    assertThat(s.at("/record/merged_through").asLong()).isEqualTo(40);
    assertThat(s.at("/record/merged_epoch").asLong()).isEqualTo(1);
    assertThat(s.get("pending_generations").asLong()).isEqualTo(20);
  }

  @Test
  void shouldAnswerTheOtherWatermarkCases() {
    assertThat(pending("writer-never-forgets-merged")).isEqualTo(4);
    assertThat(shards.get("writer-never-forgets-merged").at("/record/merged_through").asLong())
        .isEqualTo(8);
    JsonNode tie = shards.get("epoch-is-a-tiebreak");
    assertThat(tie.at("/record/sealed_through").asLong()).isEqualTo(60);
    assertThat(tie.at("/record/writer_epoch").asLong()).isEqualTo(3);
    assertThat(tie.at("/record/merged_through").asLong()).isEqualTo(55);
    assertThat(tie.at("/record/merged_epoch").asLong()).isEqualTo(1);
    assertThat(pending("epoch-is-a-tiebreak")).isEqualTo(5);
    assertThat(pending("newer-flush-but-merged-known")).isEqualTo(60);
    JsonNode scan = shards.get("scan-raises-merged-never-lowers-sealed");
    assertThat(scan.at("/record/sealed_through").asLong()).isEqualTo(30);
    assertThat(scan.at("/record/merged_through").asLong()).isEqualTo(20);
    assertThat(pending("scan-raises-merged-never-lowers-sealed")).isEqualTo(10);
  }

  @Test
  void shouldAnswerTheAgeClock() {
    JsonNode before = shards.get("age-clock");
    assertThat(before.get("oldest_pending_ms").asLong()).isEqualTo(1000);
    assertThat(before.get("oldest_pending_bound").asText()).isEqualTo("exact");
    JsonNode after = shards.get("age-clock-after-merge");
    assertThat(after.get("oldest_pending_ms").asLong()).isEqualTo(2000);
    assertThat(after.get("oldest_pending_bound").asText()).isEqualTo("exact");
    assertThat(tables.get("age-clock-after-merge").get("oldest_pending_exact_ms").asLong())
        .isEqualTo(2000);
  }

  @Test
  void shouldAnswerBeyondTheCap() {
    assertAge("beyond-the-cap", 64, 65_000, "exact");
    assertThat(shards.get("beyond-the-cap").at("/record/sealed_times").size()).isEqualTo(64);
    assertThat(tables.get("beyond-the-cap").get("oldest_pending_exact_ms").asLong())
        .isEqualTo(65_000);
  }

  @Test
  void shouldAnswerTheLongLivedShard() {
    assertAge("long-lived-shard", 10, 91_000, "exact");
    assertThat(tables.get("long-lived-shard").get("oldest_pending_exact_ms").asLong())
        .isEqualTo(91_000);
  }

  @Test
  void shouldAnswerTheBacklogBeyondTheCap() {
    assertAge("backlog-beyond-the-cap", 190, 137_000, "upper");
    JsonNode t = tables.get("backlog-beyond-the-cap");
    assertThat(t.get("oldest_pending_ms").asLong()).isEqualTo(137_000);
    assertThat(t.get("oldest_pending_exact_ms").isNull()).isTrue();
  }

  private static void assertAge(String target, long pending, long oldestMs, String bound) {
    JsonNode s = shards.get(target);
    assertThat(s.get("pending_generations").asLong()).isEqualTo(pending);
    assertThat(s.get("oldest_pending_ms").asLong()).isEqualTo(oldestMs);
    assertThat(s.get("oldest_pending_bound").asText()).isEqualTo(bound);
  }

  @Test
  void shouldFoldTheLegacyVersionAsVersionOne() {
    assertThat(shards.get("legacy-version").at("/record/v").asInt()).isEqualTo(1);
    assertThat(pending("legacy-version")).isEqualTo(7);
  }

  @Test
  void shouldGiveTheSameAnswerInReverseOrder(@TempDir Path dir) throws IOException {
    List<String> lines = Files.readAllLines(EXAMPLE);
    java.util.Collections.reverse(lines);
    Path reversed = dir.resolve("reversed.jsonl");
    Files.write(reversed, lines);
    assertThat(run("fold", "--input", reversed.toString()).out())
        .isEqualTo(run("fold", "--input", EXAMPLE.toString()).out());
  }

  @Test
  void shouldStopAtAnUnknownVersionNamingTheLine(@TempDir Path dir) throws IOException {
    Path f = dir.resolve("events.jsonl");
    Files.writeString(
        f,
        Files.readAllLines(EXAMPLE).get(0)
            + "\n\n"
            + Files.readString(Path.of("examples/unknown-version.jsonl")));
    Run r = run("fold", "--input", f.toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).contains(f + ": line 3: unknown schema version 999");
  }

  @Test
  void shouldSkipBadLinesWhenAskedAndFoldTheRest(@TempDir Path dir) throws IOException {
    Path f = dir.resolve("events.jsonl");
    String good = Files.readAllLines(EXAMPLE).get(0);
    Files.writeString(f, "garbage\n" + good + "\n{\"target\":\"t\"}\n");
    Run r = run("fold", "--skip-bad", "--input", f.toString());
    assertThat(r.exit()).isZero();
    assertThat(r.err())
        .contains("line 1: malformed JSON at line 1 column 8: Unrecognized token 'garbage'")
        .contains("line 3: missing required field 'shard'")
        .contains("skipped 2 bad line(s)");
    assertThat(r.out().lines()).hasSize(2);
  }

  @Test
  void shouldPrintAnAlignedTable() {
    Run r = run("fold", "--format", "table", "--input", EXAMPLE.toString());
    assertThat(r.exit()).isZero();
    List<String> lines = r.out().lines().toList();
    assertThat(lines.get(0)).startsWith("TARGET").contains("PENDING").contains("BOUND");
    assertThat(lines)
        .anyMatch(
            l ->
                l.startsWith("backlog-beyond-the-cap")
                    && l.contains(" 190 ")
                    && l.endsWith("upper"))
        .anyMatch(l -> l.startsWith("beyond-the-cap") && l.contains(" 64 ") && l.endsWith("exact"));
  }

  @Test
  void shouldListEveryCommandInHelp() {
    Run r = run("--help");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("fold");
  }

  private static long pending(String target) {
    return shards.get(target).get("pending_generations").asLong();
  }
}
