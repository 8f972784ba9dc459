package io.demandfold.cli;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.Mark;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.ShardView;
import io.demandfold.core.TableView;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.core.codec.ViewJson;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code demandfold fold}: folds JSON-lines events, or the events topic, offline and prints the
 * demand.
 */
@Command(
    name = "fold",
    mixinStandardHelpOptions = true,
    description = {
      "Folds JSON-lines events (one event with its \"target\" per line) offline and prints one"
          + " line per shard, then one per table, sorted by target, then shard.",
      "With --from-topic it folds the events topic (topics.events) instead, from the beginning"
          + " up to now, --until-offsets or --as-of, skipping what the pipeline dead-letters.",
      "Exit status: 0 folded, 2 a malformed line (or any bad line without --skip-bad) or a bad"
          + " flag."
    })
final class FoldCommand implements Callable<Integer> {
  /** Exit status of a malformed line. */
  static final int EXIT_BAD_INPUT = 2;

  enum Format {
    json,
    table
  }

  @Option(
      names = "--input",
      arity = "1..*",
      paramLabel = "FILE",
      description = "JSON-lines files to read, in order ('-' is standard input). Default: stdin.")
  List<Path> inputs;

  @Option(
      names = "--format",
      defaultValue = "json",
      paramLabel = "json|table",
      description = "json: JSON lines (default); table: an aligned human table.")
  Format format;

  @Option(
      names = "--skip-bad",
      description = "Report each bad line on stderr and go on, instead of stopping.")
  boolean skipBad;

  @Option(
      names = "--from-topic",
      description =
          "Read the events topic (topics.events, on kafka.bootstrap.servers) instead of files.")
  boolean fromTopic;

  @Mixin LogEndOptions logEnd;

  @Mixin SettingsOptions settings;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter err = spec.commandLine().getErr();
    Fold fold;
    if (fromTopic) {
      if (inputs != null) {
        throw new ParameterException(
            spec.commandLine(), "--input and --from-topic are exclusive: give one of them");
      }
      LogEnd until = logEnd.end();
      DemandfoldConfig config = settings.load(Map.of()).requireKafka();
      fold = ProgressReplay.run(config, until, "fold", err).fold();
    } else {
      if (logEnd.given()) {
        throw new ParameterException(
            spec.commandLine(),
            (logEnd.asOf != null ? "--as-of" : "--until-offsets")
                + " reads the events topic: give --from-topic too");
      }
      fold = new Fold();
      if (readFiles(fold, err) > 0 && !skipBad) {
        return EXIT_BAD_INPUT;
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    if (format == Format.json) {
      printJson(fold, out);
    } else {
      printTable(fold, out);
    }
    out.flush();
    return 0;
  }

  /** Folds the input files into {@code fold}; returns how many bad lines there were. */
  private long readFiles(Fold fold, PrintWriter err) throws IOException {
    long bad = 0;
    List<Path> sources = inputs == null ? List.of(Path.of("-")) : inputs;
    for (Path source : sources) {
      boolean stdin = source.toString().equals("-");
      try (InputStream in = stdin ? System.in : Files.newInputStream(source)) {
        LineReader lines = new LineReader(in);
        long lineNo = 0;
        byte[] line;
        while ((line = lines.next()) != null) {
          lineNo++;
          if (LineReader.isBlank(line)) {
            continue;
          }
          try {
            DemandEvent e = JsonCodec.decodeEvent(line);
            fold.add(e);
          } catch (InvalidEventException e) {
            bad++;
            String where = (sources.size() > 1 || !stdin ? source + ": " : "") + "line " + lineNo;
            err.println("demandfold fold: " + where + ": " + e.getMessage());
            err.flush();
            if (!skipBad) {
              return bad;
            }
          }
        }
      }
    }
    if (bad > 0) {
      err.println("demandfold fold: skipped " + bad + " bad line(s)");
    }
    return bad;
  }

  private static void printJson(Fold fold, PrintWriter out) {
    for (var t : fold.targets().entrySet()) {
      for (ShardRecord r : t.getValue().values()) {
        out.println(ViewJson.shardLine(t.getKey(), r));
      }
      out.println(ViewJson.tableLine(t.getKey(), TableView.of(t.getValue().values())));
    }
  }

  private static void printTable(Fold fold, PrintWriter out) {
    TextTable table =
        new TextTable(
                "TARGET",
                "SHARD",
                "SEALED",
                "MERGED",
                "PENDING",
                "PENDING_BYTES",
                "OLDEST_PENDING_MS",
                "BOUND")
            .numeric(4, 5, 6);
    for (var t : fold.targets().entrySet()) {
      SortedMap<String, ShardRecord> shards = t.getValue();
      for (ShardRecord r : shards.values()) {
        ShardView v = ShardView.of(r);
        table.row(
            t.getKey(),
            r.shard(),
            mark(r.sealedMark()),
            r.mergedMark() == null ? "-" : mark(r.mergedMark()),
            v.pendingGenerations(),
            v.pendingGenerations() > 0 ? r.sealedBytesThrough() : 0,
            orDash(v.oldestPendingMs()),
            v.oldestPendingBound() == null ? "-" : v.oldestPendingBound().wire());
      }
      TableView tv = TableView.of(shards.values());
      table.row(
          t.getKey(),
          "(table: " + tv.shards() + (tv.shards() == 1 ? " shard)" : " shards)"),
          "",
          "",
          tv.pendingGenerations(),
          tv.pendingBytes(),
          orDash(tv.oldestPendingMs()),
          "exact " + orDash(tv.oldestPendingExactMs()));
    }
    table.print(out);
  }

  private static String mark(Mark m) {
    return m.value() + " (epoch " + m.epoch() + ")";
  }

  private static String orDash(OptionalLong v) {
    return v.isPresent() ? Long.toString(v.getAsLong()) : "-";
  }
}
