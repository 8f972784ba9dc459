package io.demandfold.cli;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.Keys;
import io.demandfold.core.Printable;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.ShardView;
import io.demandfold.core.TableView;
import io.demandfold.core.UnknownVersionException;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.core.codec.ViewJson;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.ops.EtcdSnapshot;
import io.demandfold.ops.LogReplay;
import io.etcd.jetcd.Client;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code demandfold inspect}: the etcd records of one target, or its demand as of a time. */
@Command(
    name = "inspect",
    mixinStandardHelpOptions = true,
    description = {
      "Shows the etcd records of one target: per shard the sealed and merged marks, pending"
          + " generations and the oldest pending flush with its bound, then the table.",
      "With --as-of TIME it reads the events topic instead of etcd and shows, in the same form,"
          + " the demand known at TIME: the fold of the events stamped before it (per partition,"
          + " the consumer's offsetsForTimes).",
      "Exit status: 0 found, 1 no record (or no event before TIME) of that target, 2 a bad flag."
    })
final class InspectCommand implements Callable<Integer> {
  @Mixin SettingsOptions settings;
  @Mixin OpsOptions ops;

  @Option(names = "--target", required = true, paramLabel = "TABLE", description = "The target.")
  String target;

  @Option(names = "--json", description = "JSON lines (the shard and table lines of 'fold').")
  boolean json;

  @Option(
      names = "--as-of",
      paramLabel = "TIME",
      description =
          "Show the demand known at TIME (ISO-8601 instant or epoch ms), folded from the events"
              + " topic; needs Kafka, not etcd.")
  String asOf;

  @Spec CommandSpec spec;

  /** A shard as read: its record, or why there is none. */
  private record Shard(String shard, ShardRecord record, String problem) {}

  @Override
  public Integer call() throws Exception {
    Long asOfMs = asOf == null ? null : LogEndOptions.time(spec, "--as-of", asOf);
    DemandfoldConfig config = ops.load(settings);
    List<Shard> shards = asOfMs == null ? fromEtcd(config) : fromLog(config, asOfMs);
    if (shards == null) {
      return 1;
    }
    print(shards, spec.commandLine().getOut());
    return 0;
  }

  private List<Shard> fromEtcd(DemandfoldConfig config) throws Exception {
    config.requireEtcd();
    EtcdLayout layout = config.layout();
    String from = layout.shardRecordsPrefix() + Keys.hex(target) + "/";
    EtcdSnapshot snapshot;
    try (Client etcd = config.etcd().connect()) {
      snapshot =
          EtcdSnapshot.read(
              etcd.getKVClient(), from, config.getLong(DemandfoldConfig.ETCD_REQUEST_TIMEOUT_MS));
    }
    if (snapshot.values().isEmpty()) {
      spec.commandLine()
          .getErr()
          .println(
              "demandfold inspect: no record of target '"
                  + Printable.escape(target)
                  + "' under "
                  + from);
      return null;
    }
    List<Shard> out = new ArrayList<>();
    for (Map.Entry<String, byte[]> e : snapshot.values().entrySet()) {
      String shard = e.getKey().substring(from.length());
      try {
        out.add(new Shard(shard, JsonCodec.decodeRecord(e.getValue()), null));
      } catch (UnknownVersionException x) {
        out.add(new Shard(shard, null, "(schema v" + x.version() + ", newer than this reader)"));
      } catch (InvalidEventException x) {
        out.add(new Shard(shard, null, "(unreadable: " + x.getMessage() + ")"));
      }
    }
    return out;
  }

  private List<Shard> fromLog(DemandfoldConfig config, long asOfMs) throws Exception {
    config.requireKafka();
    LogEnd end = LogEnd.asOf(asOfMs);
    LogReplay.Result folded =
        ProgressReplay.run(
            config, end, Keys.hex(target) + "/", "inspect", spec.commandLine().getErr());
    if (folded.fold().shards(target).isEmpty()) {
      spec.commandLine()
          .getErr()
          .println(
              "demandfold inspect: no event of target '"
                  + Printable.escape(target)
                  + "' in "
                  + config.getString(DemandfoldConfig.TOPICS_EVENTS)
                  + " "
                  + end.describe());
      return null;
    }
    List<Shard> out = new ArrayList<>();
    folded.fold().shards(target).forEach((shard, r) -> out.add(new Shard(shard, r, null)));
    return out;
  }

  private void print(List<Shard> shards, PrintWriter out) {
    List<ShardRecord> records = new ArrayList<>();
    TextTable table =
        new TextTable("SHARD", "SEALED", "MERGED", "PENDING", "OLDEST_PENDING_MS", "BOUND")
            .numeric(3, 4);
    for (Shard s : shards) {
      ShardRecord r = s.record();
      if (r == null) {
        table.row(s.shard(), s.problem());
        continue;
      }
      records.add(r);
      ShardView v = ShardView.of(r);
      if (json) {
        out.println(ViewJson.shardLine(target, r));
      }
      table.row(
          s.shard(),
          r.sealedThrough() + " (epoch " + r.writerEpoch() + ")",
          r.mergedMark() == null
              ? "-"
              : r.mergedMark().value() + " (epoch " + r.mergedMark().epoch() + ")",
          v.pendingGenerations(),
          v.oldestPendingMs().isPresent() ? v.oldestPendingMs().getAsLong() : "-",
          v.oldestPendingBound() == null ? "-" : v.oldestPendingBound().name());
    }
    TableView view = TableView.of(records);
    if (json) {
      out.println(ViewJson.tableLine(target, view));
    } else {
      table.print(out);
      out.printf(
          "table %s: %d shards, %d pending generations, %d pending bytes, oldest pending %s"
              + " (exact %s)%n",
          Printable.escape(target),
          view.shards(),
          view.pendingGenerations(),
          view.pendingBytes(),
          view.oldestPendingMs().isPresent() ? view.oldestPendingMs().getAsLong() + " ms" : "-",
          view.oldestPendingExactMs().isPresent()
              ? view.oldestPendingExactMs().getAsLong() + " ms"
              : "-");
    }
    out.flush();
  }
}
