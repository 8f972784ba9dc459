package io.demandfold.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The restores of stores from their changelogs that an instance logged ({@code restored STORE
 * partition P: N records in T ms}, one line per store partition, written by the service's restore
 * listener).
 */
final class Restores {
  private static final Pattern LINE =
      Pattern.compile("restored (\\S+) partition (\\d+): (\\d+) records in (\\d+) ms");

  private Restores() {}

  /** One store partition restored. */
  record Restore(String store, int partition, long records, long ms) {}

  /** Every restore line of {@code log}, in order. */
  static List<Restore> parse(String log) {
    List<Restore> out = new ArrayList<>();
    Matcher m = LINE.matcher(log);
    while (m.find()) {
      out.add(
          new Restore(
              m.group(1),
              Integer.parseInt(m.group(2)),
              Long.parseLong(m.group(3)),
              Long.parseLong(m.group(4))));
    }
    return out;
  }

  /** Records restored, over every restore. */
  static long records(List<Restore> restores) {
    return restores.stream().mapToLong(Restore::records).sum();
  }

  /**
   * The longest restore in milliseconds (the stores of the tasks an instance takes over are
   * restored together, so this is about how long their restore took); 0 when there was none.
   */
  static long longestMs(List<Restore> restores) {
    return restores.stream().mapToLong(Restore::ms).max().orElse(0);
  }

  /** Per store: partitions restored, records and the longest time, e.g. for a log line. */
  static String byStore(List<Restore> restores) {
    Map<String, long[]> by = new TreeMap<>();
    for (Restore r : restores) {
      long[] a = by.computeIfAbsent(r.store(), s -> new long[3]);
      a[0]++;
      a[1] += r.records();
      a[2] = Math.max(a[2], r.ms());
    }
    StringBuilder sb = new StringBuilder();
    by.forEach(
        (store, a) ->
            sb.append(sb.length() == 0 ? "" : ", ")
                .append(
                    String.format(
                        java.util.Locale.ROOT,
                        "%s: %d partitions, %,d records, %d ms",
                        store,
                        a[0],
                        a[1],
                        a[2])));
    return sb.length() == 0 ? "none" : sb.toString();
  }
}
