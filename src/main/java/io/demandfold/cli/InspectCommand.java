package io.demandfold.cli;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.ShardView;
import io.demandfold.core.TableView;
import io.demandfold.core.UnknownVersionException;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.core.codec.ViewJson;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.ops.EtcdSnapshot;
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

/** {@code demandfold inspect}: the etcd records of one target. */
@Command(
    name = "inspect",
    mixinStandardHelpOptions = true,
    description = {
      "Shows the etcd records of one target: per shard the sealed and merged marks, pending"
          + " generations and the oldest pending flush with its bound, then the table.",
      "Exit status: 0 found, 1 no record of that target under the prefix."
    })
final class InspectCommand implements Callable<Integer> {
  @Mixin SettingsOptions settings;
  @Mixin OpsOptions ops;

  @Option(names = "--target", required = true, paramLabel = "TABLE", description = "The target.")
  String target;

  @Option(names = "--json", description = "JSON lines (the shard and table lines of 'fold').")
  boolean json;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    DemandfoldConfig config = ops.load(settings).requireEtcd();
    EtcdLayout layout = config.layout();
    String from = layout.shardRecordsPrefix() + Keys.hex(target) + "/";
    EtcdSnapshot snapshot;
    try (Client etcd = config.etcd().connect()) {
      snapshot =
          EtcdSnapshot.read(
              etcd.getKVClient(), from, config.getLong(DemandfoldConfig.ETCD_REQUEST_TIMEOUT_MS));
    }
    PrintWriter out = spec.commandLine().getOut();
    if (snapshot.values().isEmpty()) {
      spec.commandLine()
          .getErr()
          .println("demandfold inspect: no record of target '" + target + "' under " + from);
      return 1;
    }
    List<ShardRecord> records = new ArrayList<>();
    TextTable table =
        new TextTable("SHARD", "SEALED", "MERGED", "PENDING", "OLDEST_PENDING_MS", "BOUND")
            .numeric(3, 4);
    for (Map.Entry<String, byte[]> e : snapshot.values().entrySet()) {
      String shard = e.getKey().substring(from.length());
      ShardRecord r;
      try {
        r = JsonCodec.decodeRecord(e.getValue());
      } catch (UnknownVersionException x) {
        table.row(shard, "(schema v" + x.version() + ", newer than this reader)");
        continue;
      } catch (InvalidEventException x) {
        table.row(shard, "(unreadable: " + x.getMessage() + ")");
        continue;
      }
      records.add(r);
      ShardView v = ShardView.of(r);
      if (json) {
        out.println(ViewJson.shardLine(target, r));
      }
      table.row(
          shard,
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
          target,
          view.shards(),
          view.pendingGenerations(),
          view.pendingBytes(),
          view.oldestPendingMs().isPresent() ? view.oldestPendingMs().getAsLong() + " ms" : "-",
          view.oldestPendingExactMs().isPresent()
              ? view.oldestPendingExactMs().getAsLong() + " ms"
              : "-");
    }
    out.flush();
    return 0;
  }
}
