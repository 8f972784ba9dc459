package io.demandfold.docs;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the README and the pages under {@code docs/}, and the tables in them that tests hold the
 * code to.
 */
public final class Docs {
  /** The page with the metrics table. */
  public static final String HTTP_API = "docs/http-api.md";

  private Docs() {}

  /**
   * A row of the metrics table.
   *
   * @param name the Prometheus name; a trailing {@code *} stands for a family of names
   * @param type counter, gauge, summary or timer
   * @param labels the labels column as written
   * @param meaning the meaning column as written
   */
  public record Metric(String name, String type, String labels, String meaning) {
    public boolean isFamily() {
      return name.endsWith("*");
    }
  }

  /** The text of {@code page}, a path from the project root such as {@code docs/etcd.md}. */
  public static String text(String page) {
    try {
      return Files.readString(Path.of(page));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The section of {@code page} under {@code ## title}, up to the next {@code ## } heading. */
  public static String section(String page, String title) {
    String[] parts = text(page).split("\n## " + title + "\n", 2);
    if (parts.length < 2) {
      throw new IllegalStateException(page + " has no section '## " + title + "'");
    }
    return parts[1].split("\n## ", 2)[0];
  }

  /** The names of the metrics in the Metrics table of {@link #HTTP_API}. */
  public static List<String> documentedMetricNames() {
    return metrics().stream().map(Metric::name).toList();
  }

  /** The names of the metrics {@code registry} exposes, from its {@code # TYPE} lines. */
  public static List<String> exposedMetricNames(PrometheusMeterRegistry registry) {
    return registry
        .scrape()
        .lines()
        .filter(l -> l.startsWith("# TYPE "))
        .map(l -> l.split(" ")[2])
        .toList();
  }

  /**
   * Every row of the table in {@code ## Metrics} of {@link #HTTP_API}: {@code | `name` | type |
   * labels | meaning |}.
   */
  public static List<Metric> metrics() {
    List<Metric> out = new ArrayList<>();
    for (String line : section(HTTP_API, "Metrics").split("\n")) {
      if (!line.startsWith("| `")) {
        continue;
      }
      String[] cells = line.split("(?<!\\\\)\\|");
      out.add(
          new Metric(
              cells[1].trim().replace("`", ""), cells[2].trim(), cells[3].trim(), cells[4].trim()));
    }
    return out;
  }
}
