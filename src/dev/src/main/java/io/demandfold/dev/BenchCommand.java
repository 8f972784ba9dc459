package io.demandfold.dev;

import io.demandfold.bench.Bench;
import io.demandfold.bench.BenchResults;
import io.demandfold.bench.BenchSettings;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code demandfold bench}: the end-to-end benchmark. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Starts a real broker and a real etcd on loopback, preloads a fleet's events (5,000,000"
          + " over 100 x 100 shards; --quick: 300,000 over 20 x 50) and measures, in one run:"
          + " (a) a plain consumer's read rate, (a2) a group consumer decoding every event,"
          + " (b) demandfold folding the topic with the mirror on until etcd equals the offline"
          + " fold, (d) produce-to-etcd latency at 5,000 events/s and at 25, 50, 75 and 90 %% of"
          + " (b), and of the same events at 5,000 events/s produce to a DemandView listener (the"
          + " view's lag), (c)"
          + " per-event read-join-CAS from 16 publishers on a fresh etcd, (e) the heap of a"
          + " service process after folding 100,000 shards, (f) scale-out: three 'demandfold"
          + " run' child JVMs share a 12-partition topic at 2,000 events/s, one gets SIGKILL,"
          + " with num.standby.replicas 0 and 1 (time until its partitions' etcd writes resume,"
          + " restore time, etcd against the offline fold, state per shard), (g) a million"
          + " shards (3,000,000 events folded by a 'demandfold run' child: rate, state, heap,"
          + " restore, audit, rebuild), (h) the same million shards live at an event a shard a"
          + " minute for 5 minutes (produce to etcd, fold delay, etcd requests and bytes by"
          + " record kind, heap), and the join on one thread.",
      "Prints a table with the ratios and writes target/bench-results.json."
    })
final class BenchCommand implements Callable<Integer> {
  @Option(names = "--quick", description = "Smaller sizes; finishes in a few minutes.")
  boolean quick;

  @Option(
      names = "--set",
      paramLabel = "NAME=VALUE",
      description =
          "A setting of the pipeline under test in (b) and (d), e.g. --set"
              + " kafka.commit.interval.ms=1000; repeatable. With mirror.enabled=false and"
              + " mirror.tables=false, (b) ends when every event is folded.")
  java.util.Map<String, String> set = new java.util.LinkedHashMap<>();

  @Option(
      names = "--latency-rate",
      paramLabel = "EVENTS_PER_S",
      description = "Offered rate of the latency run (d) (default 5000).")
  Integer latencyRate;

  @Option(
      names = "--sweep-base",
      paramLabel = "EVENTS_PER_S",
      description =
          "The rate (d)'s load sweep offers 25, 50, 75 and 90 %% of (default: (b)'s rate as"
              + " measured in this run), to compare runs at the same offered rates.")
  Integer sweepBase;

  @Option(
      names = "--output",
      defaultValue = "target/bench-results.json",
      description = "Where to write the figures (default target/bench-results.json).")
  Path output;

  @Option(
      names = "--events",
      paramLabel = "N",
      description = "Events to preload instead of the mode's (5,000,000; --quick 300,000).")
  Integer events;

  @Option(
      names = "--skip",
      split = ",",
      paramLabel = "MEASURE",
      description =
          "Measures to leave out, for a shorter run while working on one: b (the preload with"
              + " (a), (a2), (b) and (d), which read it), c (the reference), d (the latency"
              + " sweep and the view's lag), e (memory), f (scale-out), g (a million shards), h"
              + " (the million shards live, after (g): left out with it). --skip b,c,e,g runs (f)"
              + " alone.")
  java.util.Set<String> skip = new java.util.TreeSet<>();

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    Integer rate = atLeast("--latency-rate", latencyRate, 1);
    Integer base = atLeast("--sweep-base", sweepBase, 4);
    Integer n = atLeast("--events", events, 1000);
    BenchSettings s = (quick ? BenchSettings.quick() : BenchSettings.full()).with(n, rate, base);
    for (String m : skip) {
      if (!java.util.Set.of("b", "c", "d", "e", "f", "g", "h").contains(m)) {
        throw new picocli.CommandLine.ParameterException(
            spec.commandLine(), "--skip takes b, c, d, e, f, g and h, got '" + m + "'");
      }
    }
    Path work = Files.createTempDirectory("demandfold-bench-");
    try {
      BenchResults r = Bench.run(s, set, skip, out, work);
      out.println();
      r.print(out);
      r.writeJson(output);
      out.println("figures written to " + output);
      out.flush();
      return 0;
    } finally {
      try (var walk = Files.walk(work)) {
        walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** {@code value}, unless it is below {@code min}: then a bad flag (exit 2). */
  private Integer atLeast(String flag, Integer value, int min) {
    if (value != null && value < min) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), flag + " must be at least " + min + ", got " + value);
    }
    return value;
  }
}
