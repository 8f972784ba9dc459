package io.demandfold.bench;

import io.demandfold.mirror.RecordKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a {@code demandfold run} child's {@code /metrics} says of its mirror and its fold at one
 * moment: keys written, transactions, requests and request bytes by record kind ({@code
 * demandfold_mirror_total}, {@code demandfold_etcd_requests_total}, {@code
 * demandfold_etcd_request_bytes_total}) and its fold delay ({@code demandfold_fold_delay_seconds});
 * figures over a window are differences of two of these ({@link #since}).
 *
 * @param nanos when it was read ({@link System#nanoTime})
 * @param shardKeys shard keys written (results written and too_large)
 * @param tableKeys table keys written
 * @param shardTxns compare-and-swap transactions of shard keys
 * @param tableTxns of table keys
 * @param shardRequests every request of shard keys (reads and transactions)
 * @param tableRequests of table keys
 * @param requests every request (probes too)
 * @param shardBytes request bytes of shard keys
 * @param tableBytes of table keys
 * @param bytes of every request
 * @param foldDelays events whose fold delay was recorded (one in 8)
 * @param foldDelaySeconds their delays summed
 * @param foldDelayP99Ms the 99th percentile the service published (its last 30 s), NaN if none
 * @param foldDelayMaxMs the largest delay of its last 30 s, NaN if none
 */
record ServiceCounters(
    long nanos,
    double shardKeys,
    double tableKeys,
    double shardTxns,
    double tableTxns,
    double shardRequests,
    double tableRequests,
    double requests,
    double shardBytes,
    double tableBytes,
    double bytes,
    double foldDelays,
    double foldDelaySeconds,
    double foldDelayP99Ms,
    double foldDelayMaxMs) {

  private static final Pattern SAMPLE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})?\\s+(\\S+)(?:\\s+\\S+)?$");
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  /** One sample of an exposition: its name, labels and value. */
  record Sample(String name, Map<String, String> labels, double value) {}

  /** The samples of a Prometheus text exposition (comments and blank lines skipped). */
  static List<Sample> samples(String exposition) {
    List<Sample> out = new ArrayList<>();
    for (String line : exposition.split("\n")) {
      line = line.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      Matcher m = SAMPLE.matcher(line);
      if (!m.matches()) {
        continue;
      }
      Map<String, String> labels = new TreeMap<>();
      if (m.group(2) != null) {
        Matcher l = LABEL.matcher(m.group(2));
        while (l.find()) {
          labels.put(l.group(1), l.group(2));
        }
      }
      out.add(new Sample(m.group(1), labels, value(m.group(3))));
    }
    return out;
  }

  private static double value(String s) {
    return switch (s) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      default -> {
        try {
          yield Double.parseDouble(s);
        } catch (NumberFormatException e) {
          yield Double.NaN;
        }
      }
    };
  }

  /**
   * The sum of the samples named {@code name} whose labels include {@code labels} (name, value,
   * ...); NaN when none is.
   */
  static double sum(List<Sample> samples, String name, String... labels) {
    double sum = 0;
    boolean seen = false;
    for (Sample s : samples) {
      if (!s.name().equals(name)) {
        continue;
      }
      boolean match = true;
      for (int i = 0; i + 1 < labels.length && match; i += 2) {
        match = labels[i + 1].equals(s.labels().get(labels[i]));
      }
      if (match) {
        sum += s.value();
        seen = true;
      }
    }
    return seen ? sum : Double.NaN;
  }

  /**
   * The counters of an exposition read at {@code nanos}.
   *
   * @throws IllegalStateException when it lacks a counter of the mirror by kind (a service without
   *     the {@code kind} label on its requests)
   */
  static ServiceCounters parse(String exposition, long nanos) {
    List<Sample> s = samples(exposition);
    String shard = RecordKind.SHARD.label();
    String table = RecordKind.TABLE.label();
    ServiceCounters c =
        new ServiceCounters(
            nanos,
            written(s, shard),
            written(s, table),
            sum(s, "demandfold_etcd_requests_total", "op", "txn", "kind", shard),
            sum(s, "demandfold_etcd_requests_total", "op", "txn", "kind", table),
            sum(s, "demandfold_etcd_requests_total", "kind", shard),
            sum(s, "demandfold_etcd_requests_total", "kind", table),
            sum(s, "demandfold_etcd_requests_total"),
            sum(s, "demandfold_etcd_request_bytes_total", "kind", shard),
            sum(s, "demandfold_etcd_request_bytes_total", "kind", table),
            sum(s, "demandfold_etcd_request_bytes_total"),
            zeroIfNone(sum(s, "demandfold_fold_delay_seconds_count")),
            zeroIfNone(sum(s, "demandfold_fold_delay_seconds_sum")),
            sum(s, "demandfold_fold_delay_seconds", "quantile", "0.99") * 1e3,
            sum(s, "demandfold_fold_delay_seconds_max") * 1e3);
    for (double v :
        new double[] {
          c.shardKeys, c.tableKeys, c.shardTxns, c.tableTxns, c.shardBytes, c.tableBytes
        }) {
      if (Double.isNaN(v)) {
        throw new IllegalStateException(
            "/metrics lacks demandfold_mirror_total, demandfold_etcd_requests_total{op,kind} or"
                + " demandfold_etcd_request_bytes_total{kind} of shard and table keys");
      }
    }
    return c;
  }

  private static double written(List<Sample> s, String kind) {
    return sum(s, "demandfold_mirror_total", "kind", kind, "result", "written")
        + sum(s, "demandfold_mirror_total", "kind", kind, "result", "too_large");
  }

  private static double zeroIfNone(double v) {
    return Double.isNaN(v) ? 0 : v;
  }

  /** Seconds from {@code before} to this. */
  double secondsSince(ServiceCounters before) {
    return (nanos - before.nanos) / 1e9;
  }

  /** Shard and table keys written since {@code before}. */
  double keysSince(ServiceCounters before) {
    return shardKeys + tableKeys - before.shardKeys - before.tableKeys;
  }

  /** Keys written per transaction since {@code before}; NaN without a transaction. */
  double keysPerTxnSince(ServiceCounters before) {
    double txns = shardTxns + tableTxns - before.shardTxns - before.tableTxns;
    return txns == 0 ? Double.NaN : keysSince(before) / txns;
  }

  /** The mean fold delay of the events recorded since {@code before}, ms; NaN if none was. */
  double foldDelayMeanMsSince(ServiceCounters before) {
    double n = foldDelays - before.foldDelays;
    return n <= 0 ? Double.NaN : (foldDelaySeconds - before.foldDelaySeconds) / n * 1e3;
  }
}
