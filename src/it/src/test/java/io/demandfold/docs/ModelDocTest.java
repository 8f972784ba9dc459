package io.demandfold.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.demandfold.core.Fold;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.Join;
import io.demandfold.core.Mark;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.ShardView;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.core.codec.TableJson;
import io.demandfold.it.Build;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/model.md stays true to the code: its ten numbered sections (which Javadocs cite by number),
 * its example events, worked joins and table record, and its table of named cases.
 *
 * <p>Examples are fenced blocks whose info string is {@code json} and a kind: {@code event} (one
 * event a line, each must decode), {@code bad-event} (one event a line, each refused, with its
 * message quoted in the page), {@code join} (a worked join: {@code stored}, {@code events}, {@code
 * joined}, optionally {@code "unchanged":true}) and {@code table-record}.
 */
class ModelDocTest {
  private static final Path DOC = Path.of("docs/model.md");
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Set<String> KINDS = Set.of("event", "bad-event", "join", "table-record");
  private static final Pattern HEADING = Pattern.compile("(?m)^## (\\d+)\\. \\S.*$");
  private static final Pattern CITATION =
      Pattern.compile(
          "(?:docs/model\\.md|\\bspec(?:/demand-model\\.md)?)[,:]?\\s+(?:sections?\\s+|§\\s*)"
              + "(\\d+(?:\\s*(?:,|and|or|to|-|–)\\s*\\d+)*)");
  private static final Pattern ANCHOR = Pattern.compile("docs/model\\.md#([\\w-]+)");

  /** A fenced block: the kind after {@code json}, and its text. */
  record Block(String kind, String text) {}

  private static String doc() {
    try {
      return Files.readString(DOC);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The numbers of the {@code ## N. Title} headings, in order. */
  static List<Integer> sectionNumbers(String markdown) {
    List<Integer> out = new ArrayList<>();
    Matcher m = HEADING.matcher(markdown);
    while (m.find()) {
      out.add(Integer.parseInt(m.group(1)));
    }
    return out;
  }

  /** The GitHub anchors of the {@code ## N. Title} headings. */
  static Set<String> anchors(String markdown) {
    Set<String> out = new TreeSet<>();
    Matcher m = HEADING.matcher(markdown);
    while (m.find()) {
      String title = m.group().substring(3).toLowerCase(Locale.ROOT);
      out.add(title.replaceAll("[^a-z0-9 _-]", "").replace(' ', '-'));
    }
    return out;
  }

  /**
   * The section numbers that {@code source} cites as "docs/model.md section N" (or, in text written
   * before docs/model.md, "spec section N"), Javadoc line breaks and {@code *} margins included.
   */
  static Set<Integer> citedSections(String source) {
    String text = source.replaceAll("\\s*\\n\\s*\\*?\\s*", " ");
    Set<Integer> out = new TreeSet<>();
    Matcher m = CITATION.matcher(text);
    while (m.find()) {
      for (String n : m.group(1).split("\\D+")) {
        if (!n.isEmpty()) {
          out.add(Integer.parseInt(n));
        }
      }
    }
    return out;
  }

  /** The anchors that {@code source} links to as {@code docs/model.md#anchor}. */
  static Set<String> citedAnchors(String source) {
    Set<String> out = new TreeSet<>();
    Matcher m = ANCHOR.matcher(source);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  /** Every fenced block whose info string is {@code json <kind>}. */
  static List<Block> blocks(String markdown) {
    List<Block> out = new ArrayList<>();
    String[] lines = markdown.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      if (!lines[i].startsWith("```")) {
        continue;
      }
      String info = lines[i].substring(3).trim();
      StringBuilder text = new StringBuilder();
      int j = i + 1;
      while (j < lines.length && !lines[j].startsWith("```")) {
        text.append(lines[j]).append('\n');
        j++;
      }
      String[] words = info.split("\\s+");
      if (words.length > 1 && words[0].equals("json")) {
        assertThat(KINDS).as("the kind of the block at line %d", i + 1).contains(words[1]);
        out.add(new Block(words[1], text.toString()));
      }
      i = j;
    }
    return out;
  }

  private static List<Block> blocks(String markdown, String kind) {
    return blocks(markdown).stream().filter(b -> b.kind().equals(kind)).toList();
  }

  private static List<String> lines(Block b) {
    return b.text().lines().filter(l -> !l.isBlank()).toList();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void shouldKeepTheTenNumberedSectionsInOrder() {
    assertThat(sectionNumbers(doc()))
        .as("the '## N. Title' headings of %s", DOC)
        .containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
  }

  @Test
  void shouldHaveEverySectionAndAnchorTheMainSourcesCite() throws IOException {
    Set<Integer> sections = new TreeSet<>(sectionNumbers(doc()));
    Set<String> anchors = anchors(doc());
    TreeMap<String, Set<Integer>> citing = new TreeMap<>();
    List<String> badAnchors = new ArrayList<>();
    {
      for (Path f :
          Build.sources("main").stream().filter(p -> p.toString().endsWith(".java")).toList()) {
        String source = Files.readString(f);
        Set<Integer> cited = citedSections(source);
        if (!cited.isEmpty()) {
          citing.put(f.toString(), cited);
        }
        for (String a : citedAnchors(source)) {
          if (!anchors.contains(a)) {
            badAnchors.add(f + ": #" + a);
          }
        }
      }
    }
    assertThat(citing).as("Javadocs citing the model by section").isNotEmpty();
    citing.forEach(
        (file, cited) -> assertThat(sections).as("sections cited by %s", file).containsAll(cited));
    assertThat(badAnchors).as("links to docs/model.md anchors that do not exist").isEmpty();
  }

  @Test
  void shouldCiteTheModelNotASpecOutsideTheRepository() throws IOException {
    Pattern outside = Pattern.compile("\\bspec(?:/demand-model\\.md)?[,:]?\\s+(?:sections?|§)");
    List<String> found = new ArrayList<>();
    for (String root : List.of("src", "docs")) {
      try (Stream<Path> files = Files.walk(Path.of(root))) {
        for (Path f : files.filter(p -> p.toString().matches(".*\\.(java|md)$")).toList()) {
          if (!f.endsWith("ModelDocTest.java")
              && !f.toString().contains("/target/")
              && outside.matcher(Files.readString(f)).find()) {
            found.add(f.toString());
          }
        }
      }
    }
    assertThat(found).as("files citing a spec section instead of docs/model.md").isEmpty();
  }

  @Test
  void shouldFindCitationsAcrossJavadocLineBreaks() {
    String javadoc =
        "/**\n * The join (docs/model.md section\n * 4), see docs/model.md sections 6 and 7,\n"
            + " * spec section 2, docs/model.md §9 and [the cap](docs/model.md#5-bounding).\n */";
    assertThat(citedSections(javadoc)).containsExactly(2, 4, 6, 7, 9);
    assertThat(citedAnchors(javadoc)).containsExactly("5-bounding");
    assertThat(anchors("## 5. Bounding sealed_times\n")).containsExactly("5-bounding-sealed_times");
  }

  @Test
  void shouldDecodeEveryEventShown() {
    List<Block> events = blocks(doc(), "event");
    assertThat(events).isNotEmpty();
    for (Block b : events) {
      for (String line : lines(b)) {
        assertThat(JsonCodec.decodeEvent(utf8(line))).as(line).isNotNull();
      }
    }
  }

  @Test
  void shouldRefuseEveryBadEventShownWithTheMessageQuoted() {
    String doc = doc();
    List<Block> bad = blocks(doc, "bad-event");
    assertThat(bad).isNotEmpty();
    for (Block b : bad) {
      for (String line : lines(b)) {
        assertThatThrownBy(() -> JsonCodec.decodeEvent(utf8(line)))
            .as(line)
            .isInstanceOf(InvalidEventException.class);
        try {
          JsonCodec.decodeEvent(utf8(line));
        } catch (InvalidEventException e) {
          String quoted = "`" + e.getMessage() + "`";
          assertThat(doc.contains(quoted))
              .as("docs/model.md quotes %s, the message refusing %s", quoted, line)
              .isTrue();
        }
      }
    }
  }

  @Test
  void shouldJoinAsShownInAnyOrder() throws IOException {
    List<Block> joins = blocks(doc(), "join");
    assertThat(joins).isNotEmpty();
    for (Block b : joins) {
      JsonNode root = MAPPER.readTree(b.text());
      JsonNode storedNode = root.get("stored");
      ShardRecord stored =
          storedNode == null || storedNode.isNull()
              ? null
              : JsonCodec.decodeRecord(MAPPER.writeValueAsBytes(storedNode));
      List<ShardRecord> events = new ArrayList<>();
      for (JsonNode e : root.get("events")) {
        events.add(JsonCodec.decodeEvent(MAPPER.writeValueAsBytes(e)).record());
      }
      assertThat(events).as(b.text()).isNotEmpty();
      String shown = MAPPER.writeValueAsString(root.get("joined"));

      assertThat(utf8(JsonCodec.encodeRecord(fold(stored, events))))
          .as("the joined record of %s", b.text())
          .isEqualTo(shown);
      List<ShardRecord> reversed = new ArrayList<>(events);
      Collections.reverse(reversed);
      assertThat(utf8(JsonCodec.encodeRecord(fold(stored, reversed))))
          .as("the joined record of %s in reverse order", b.text())
          .isEqualTo(shown);
      if (root.path("unchanged").asBoolean()) {
        for (ShardRecord e : events) {
          assertThat(Join.join(stored, e)).as("a no-op: %s", b.text()).isSameAs(stored);
        }
      }
    }
  }

  @Test
  void shouldShowTableRecordsExactlyAsTheMirrorWritesThem() {
    List<Block> tables = blocks(doc(), "table-record");
    assertThat(tables).isNotEmpty();
    for (Block b : tables) {
      String shown = b.text().trim();
      assertThat(utf8(TableJson.encode(TableJson.decode(utf8(shown)), Integer.MAX_VALUE)))
          .isEqualTo(shown);
    }
  }

  @Test
  void shouldAnswerEveryNamedCaseAsItsTableSays() throws IOException {
    Fold fold = new Fold();
    for (String line : Files.readAllLines(Path.of("examples/named-cases.jsonl"))) {
      if (!line.isBlank()) {
        fold.add(JsonCodec.decodeEvent(utf8(line)));
      }
    }
    String section = doc().split("\n## 10\\. ", 2)[1];
    Set<String> shown = new LinkedHashSet<>();
    for (String row : section.split("\n")) {
      if (!row.startsWith("| `")) {
        continue;
      }
      String[] cells = row.split("\\|");
      String target = cells[1].trim().replace("`", "");
      shown.add(target);
      ShardRecord r = fold.shards(target).get("s");
      if (r == null) {
        fail("docs/model.md names case '%s', which examples/named-cases.jsonl lacks", target);
      }
      ShardView v = ShardView.of(r);
      assertThat(mark(r.sealedMark())).as(target + " sealed").isEqualTo(cells[3].trim());
      assertThat(mark(r.mergedMark())).as(target + " merged").isEqualTo(cells[4].trim());
      assertThat(Long.toString(v.pendingGenerations()))
          .as(target + " pending")
          .isEqualTo(cells[5].trim());
      assertThat(
              v.oldestPendingMs().isPresent()
                  ? Long.toString(v.oldestPendingMs().getAsLong())
                  : "none")
          .as(target + " oldest pending")
          .isEqualTo(cells[6].trim());
      assertThat(v.oldestPendingBound() == null ? "none" : v.oldestPendingBound().wire())
          .as(target + " bound")
          .isEqualTo(cells[7].trim());
    }
    assertThat(shown)
        .as("every case of examples/named-cases.jsonl")
        .containsExactlyInAnyOrderElementsOf(fold.targets().keySet());
  }

  private static ShardRecord fold(ShardRecord stored, List<ShardRecord> events) {
    ShardRecord r = stored;
    for (ShardRecord e : events) {
      r = Join.join(r, e);
    }
    return r;
  }

  private static String mark(Mark m) {
    return m == null ? "none" : "(" + m.value() + ", " + m.epoch() + ")";
  }
}
