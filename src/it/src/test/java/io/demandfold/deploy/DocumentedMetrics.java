package io.demandfold.deploy;

import io.demandfold.docs.Docs;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The metrics the documentation lists, which alerts and panels may read: the Metrics table of
 * docs/http-api.md (an instance's {@code /metrics}) and the Meters table of docs/consumers.md (the
 * meters of {@code DemandView}, in the scheduler's process). A summary or timer row stands for its
 * {@code _count}, {@code _sum} and {@code _max} series too.
 */
final class DocumentedMetrics {
  static final String VIEW_PAGE = "docs/consumers.md";

  private DocumentedMetrics() {}

  /** The names of the view's meters, from the Meters table of docs/consumers.md. */
  static List<String> viewMeters() {
    List<String> out = new ArrayList<>();
    for (String line : Docs.section(VIEW_PAGE, "Meters").split("\n")) {
      if (line.startsWith("| `")) {
        out.add(line.split("\\|")[1].trim().replace("`", ""));
      }
    }
    return out;
  }

  /** Whether one of the tables documents {@code metric}. */
  static boolean documents(String metric) {
    for (Docs.Metric d : Docs.metrics()) {
      if (d.isFamily() ? metric.startsWith(d.name().replace("*", "")) : matches(d.name(), metric)) {
        return true;
      }
    }
    return viewMeters().stream().anyMatch(v -> matches(v, metric));
  }

  private static boolean matches(String documented, String metric) {
    return metric.equals(documented)
        || metric.matches(Pattern.quote(documented) + "_(count|sum|max)");
  }
}
