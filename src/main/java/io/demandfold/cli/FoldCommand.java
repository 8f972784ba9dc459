package io.demandfold.cli;

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
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code demandfold fold}: folds JSON-lines events offline and prints the demand. */
@Command(
    name = "fold",
    mixinStandardHelpOptions = true,
    description = {
      "Folds JSON-lines events (one event with its \"target\" per line) offline and prints one"
          + " line per shard, then one per table, sorted by target, then shard.",
      "Exit status: 0 folded, 2 a malformed line (or any bad line without --skip-bad)."
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

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter err = spec.commandLine().getErr();
    Fold fold = new Fold();
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
              return EXIT_BAD_INPUT;
            }
          }
        }
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    if (format == Format.json) {
      printJson(fold, out);
    } else {
      printTable(fold, out);
    }
    out.flush();
    if (bad > 0) {
      err.println("demandfold fold: skipped " + bad + " bad line(s)");
    }
    return 0;
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
