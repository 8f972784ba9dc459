package io.demandfold.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.cli.Main;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.TableRecord;
import io.demandfold.core.codec.EventDecoder;
import io.demandfold.core.codec.TableJson;
import io.demandfold.it.Build;
import io.demandfold.stream.PipelineMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The pages under {@code docs/} stay true to the code, and their links lead somewhere. */
class DocsTest {
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("(?m)^#+ (.+)$");
  private static final Pattern CODE_BLOCK = Pattern.compile("(?s)```.*?```");
  private static final Pattern LAYOUT_ROW =
      Pattern.compile("(?m)^\\| `(io\\.demandfold[\\w.]*)` \\| `demandfold-(\\w+)` \\|");

  @Test
  void shouldCarryTheSettingsTableExactlyAsDeclared() {
    StringWriter out = new StringWriter();
    CommandLine cl = Main.commandLine();
    cl.setOut(new PrintWriter(out, true));
    assertThat(cl.execute("settings")).isZero();
    assertThat(Docs.section("docs/configuration.md", "Settings")).contains(out.toString());
  }

  @Test
  void shouldDocumentEveryPipelineAndMirrorMeterInTheMetricsTable() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new PipelineMetrics(registry);
    List<String> exposed = Docs.exposedMetricNames(registry);
    assertThat(exposed).hasSizeGreaterThanOrEqualTo(6);
    assertThat(Docs.documentedMetricNames()).containsAll(exposed);
  }

  @Test
  void shouldLinkOnlyToFilesAndHeadingsThatExist() throws IOException {
    List<String> broken = new ArrayList<>();
    for (Path page : pages()) {
      String text = CODE_BLOCK.matcher(Files.readString(page)).replaceAll("");
      Matcher m = LINK.matcher(text);
      while (m.find()) {
        String link = m.group(1);
        if (link.matches("[a-z]+:.*")) {
          continue; // http://, https://, mailto:
        }
        int hash = link.indexOf('#');
        String file = hash < 0 ? link : link.substring(0, hash);
        Path target = file.isEmpty() ? page : page.resolveSibling(file).normalize();
        if (!Files.exists(target)) {
          broken.add(page + ": " + link + " (no such file)");
        } else if (hash >= 0
            && target.toString().endsWith(".md")
            && !anchors(target).contains(link.substring(hash + 1))) {
          broken.add(page + ": " + link + " (no such heading)");
        }
      }
    }
    assertThat(broken).isEmpty();
  }

  @Test
  void shouldNameHeadingsAsGitHubAnchorsThem() {
    assertThat(anchors("# Growing the events topic\n## A new `application.id`\n## Keys, and more"))
        .containsExactlyInAnyOrder(
            "growing-the-events-topic", "a-new-applicationid", "keys-and-more");
  }

  @Test
  void shouldListEveryPackageInTheCodeLayoutWithItsModule() throws IOException {
    Map<String, String> listed = new TreeMap<>();
    Matcher m = LAYOUT_ROW.matcher(Docs.section("docs/testing.md", "Code layout"));
    while (m.find()) {
      listed.put(m.group(1), m.group(2));
    }
    Map<String, String> packages = new TreeMap<>();
    for (Path root : Build.sourceRoots("main")) {
      String module = root.getName(1).toString(); // src/<module>/src/main/java
      try (Stream<Path> s = Files.walk(root.resolve("io/demandfold"))) {
        s.filter(p -> p.getFileName().toString().endsWith(".java"))
            .map(p -> root.relativize(p.getParent()).toString().replace('/', '.'))
            .filter(p -> !p.equals("io.demandfold"))
            .forEach(p -> packages.put(p, module));
      }
    }
    assertThat(packages).hasSizeGreaterThanOrEqualTo(10);
    assertThat(listed).isEqualTo(packages);
  }

  @Test
  void shouldNameEveryDeadLetterReason() {
    String deadLetters = Docs.section("docs/events.md", "Dead letters");
    for (InvalidEventException.Reason r : InvalidEventException.Reason.values()) {
      assertThat(deadLetters).contains("`" + r.code() + "`");
    }
  }

  @Test
  void shouldShowAnEventAndATableRecordThatTheCodeReads() {
    String event = jsonBlock(Docs.section("docs/events.md", "Events and records"));
    DemandEvent e = EventDecoder.decode(event.getBytes(StandardCharsets.UTF_8));
    assertThat(e.target()).isEqualTo("orders");
    assertThat(e.record().shard()).isEqualTo("3f2a");

    String table = jsonBlock(Docs.section("docs/etcd.md", "Keys"));
    TableRecord r = TableJson.decode(table.getBytes(StandardCharsets.UTF_8));
    assertThat(r.shards()).containsOnlyKeys("<id>");
    assertThat(new String(TableJson.encode(r, 1 << 20), StandardCharsets.UTF_8)).isEqualTo(table);
  }

  /** The first {@code ```json} block of {@code section}, without its fences. */
  private static String jsonBlock(String section) {
    String rest = section.split("```json\n", 2)[1];
    return rest.substring(0, rest.indexOf("\n```"));
  }

  /** README.md and every page under docs/. */
  private static List<Path> pages() throws IOException {
    List<Path> out = new ArrayList<>(List.of(Path.of("README.md")));
    try (Stream<Path> s = Files.list(Path.of("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
    }
    return out;
  }

  private static Set<String> anchors(Path page) throws IOException {
    return anchors(CODE_BLOCK.matcher(Files.readString(page)).replaceAll(""));
  }

  /** GitHub's anchors of the headings in {@code text}: lower case, punctuation dropped, dashes. */
  static Set<String> anchors(String text) {
    Set<String> out = new TreeSet<>();
    Matcher m = HEADING.matcher(text);
    while (m.find()) {
      out.add(
          m.group(1)
              .trim()
              .toLowerCase(Locale.ROOT)
              .replaceAll("[^\\p{L}\\p{N}\\- _]", "")
              .replace(' ', '-'));
    }
    return out;
  }
}
