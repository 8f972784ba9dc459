package io.demandfold.bench;

import io.demandfold.mirror.EtcdMirror;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How often a measure's mirrors saw etcd lose writes ({@code
 * demandfold_mirror_etcd_rewound_total}): 0 on the bench's healthy etcd, each count a rewrite of
 * every record of the instance's tasks. Read from the counter of a mirror in this process; a child
 * process's counter dies with it (SIGKILLed in (f)), so its log is read instead, one WARN line per
 * count ({@link EtcdMirror#LOST_WRITES_WARNING}).
 */
final class EtcdRewinds {
  /** The measures whose mirrors are counted, in the table's order: label and results key. */
  private static final List<String[]> MEASURES = measures();

  /** The key of the sum over every measure. */
  static final String TOTAL = "etcd_rewinds";

  private EtcdRewinds() {}

  private static List<String[]> measures() {
    List<String[]> m = new ArrayList<>();
    m.add(new String[] {"b", "pipeline_etcd_rewinds"});
    m.add(new String[] {"c", "reference_etcd_rewinds"});
    m.add(new String[] {"d", "latency_etcd_rewinds"});
    m.add(new String[] {"e", "memory_etcd_rewinds"});
    for (int n = 0; n < 8; n++) {
      m.add(new String[] {"f standby " + n, "scaleout_etcd_rewinds_standby" + n});
    }
    m.add(new String[] {"g", "scale_etcd_rewinds"});
    m.add(new String[] {"h", "live_scale_etcd_rewinds"});
    return List.copyOf(m);
  }

  /** Puts {@code n} under {@code key} (one of the measures') and adds it to {@link #TOTAL}. */
  static void put(BenchResults r, String key, long n) {
    Object before = r.get(TOTAL);
    r.put(key, n);
    r.put(TOTAL, (before instanceof Number b ? b.longValue() : 0) + n);
  }

  /** The WARN lines of lost writes in the logs of child processes (a missing log counts none). */
  static long inLogs(Path... logs) {
    long n = 0;
    for (Path log : logs) {
      if (Files.exists(log)) {
        try {
          n += inText(Files.readString(log, StandardCharsets.UTF_8));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return n;
  }

  /** The lines of {@code log} that say etcd lost writes. */
  static long inText(String log) {
    return log.lines().filter(l -> l.contains(EtcdMirror.LOST_WRITES_WARNING)).count();
  }

  /** The summary row: every measure counted, and the goal; none when no measure was counted. */
  static List<String[]> rows(BenchResults r) {
    if (r.get(TOTAL) == null) {
      return List.of();
    }
    List<String> parts = new ArrayList<>();
    for (String[] m : MEASURES) {
      if (r.get(m[1]) instanceof Number n) {
        parts.add(String.format(Locale.ROOT, "%s %,d", m[0], n.longValue()));
      }
    }
    return List.<String[]>of(
        new String[] {
          "etcd lost writes, as the mirror saw them (etcd_rewinds): " + String.join(", ", parts),
          String.format(Locale.ROOT, "%,d", ((Number) r.get(TOTAL)).longValue()),
          "0 (a healthy etcd)"
        });
  }
}
