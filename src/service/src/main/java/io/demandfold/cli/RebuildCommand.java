package io.demandfold.cli;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.MirrorMetrics;
import io.demandfold.mirror.MirrorResult;
import io.demandfold.ops.Rebuild;
import io.demandfold.ops.Spill;
import io.etcd.jetcd.Client;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code demandfold rebuild}: writes the fold of the log into etcd through the mirror's join. */
@Command(
    name = "rebuild",
    mixinStandardHelpOptions = true,
    description = {
      "Reads the events topic from the beginning, folds it offline, and writes every record into"
          + " etcd with the mirror's read-join-CAS: it never lowers a record and never overwrites"
          + " one of a newer schema. --prefix rebuilds into another prefix; with --as-of TIME"
          + " it writes the demand known then (per partition, the events stamped before TIME).",
      "Streams: the log is spilled to java.io.tmpdir in key ranges and written one range at a"
          + " time, shard records in batches of mirror.batch.keys.",
      "Exit status: 0 done, 1 some keys failed, 2 bad settings."
    })
final class RebuildCommand implements Callable<Integer> {
  @Mixin SettingsOptions settings;
  @Mixin OpsOptions ops;

  @Mixin LogEndOptions logEnd;

  @Option(names = "--dry-run", description = "Tell what would be written; write nothing.")
  boolean dryRun;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    LogEnd until = logEnd.end();
    DemandfoldConfig config = ops.load(settings).requireKafka().requireEtcd();
    boolean tables = config.getBoolean(DemandfoldConfig.MIRROR_TABLES);
    PrintWriter out = spec.commandLine().getOut();
    try (Spill spill = Spill.create();
        Client etcd = config.etcd().connect()) {
      ProgressReplay.Spilled replayed =
          ProgressReplay.spill(config, until, "rebuild", spec.commandLine().getErr(), spill);
      // each key is read and written once: nothing to remember
      EtcdMirror mirror = config.mirror(etcd.getKVClient(), MirrorMetrics.detached(), 0);
      Rebuild.Summary s;
      if (dryRun) {
        s =
            Rebuild.dryRun(
                spill,
                mirror.preview(),
                tables,
                etcd.getKVClient(),
                config.getLong(DemandfoldConfig.ETCD_REQUEST_TIMEOUT_MS));
      } else {
        s =
            Rebuild.run(
                spill,
                mirror,
                tables,
                config.getInt(DemandfoldConfig.MIRROR_CONCURRENCY),
                config.getInt(DemandfoldConfig.MIRROR_BATCH_KEYS),
                5);
      }
      replayed.finish();
      out.printf(
          "rebuild%s under %s%s: %s %d, unchanged %d, refused (newer schema) %d, too large %d,"
              + " failed %d%n",
          dryRun ? " (dry run)" : "",
          config.layout().prefix(),
          until.asOfMs() == null ? "" : " " + until.describe(),
          dryRun ? "would write" : "wrote",
          s.count(MirrorResult.WRITTEN),
          s.count(MirrorResult.UNCHANGED),
          s.count(MirrorResult.REFUSED_NEWER_SCHEMA),
          s.count(MirrorResult.TOO_LARGE),
          s.count(MirrorResult.FAILED));
      out.flush();
      return s.count(MirrorResult.FAILED) == 0 ? 0 : 1;
    }
  }
}
