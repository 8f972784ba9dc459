package io.demandfold.cli;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.core.Printable;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.ops.Audit;
import io.demandfold.ops.Spill;
import io.etcd.jetcd.Client;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code demandfold audit}: does etcd equal the fold of the log? */
@Command(
    name = "audit",
    mixinStandardHelpOptions = true,
    description = {
      "Reads the events topic from the beginning with its own consumer (no group offsets"
          + " committed), folds it offline, and compares every key under the etcd prefix with"
          + " what the mirror writes for that fold, byte for byte.",
      "With --as-of TIME the fold is of the log as it was then (per partition, the events"
          + " stamped before TIME), to compare with a snapshot of etcd taken then, or with a"
          + " prefix written by 'rebuild --as-of TIME --prefix P'.",
      "Prints the divergent keys (missing, extra, different, with both values; the first "
          + AuditCommand.LISTED
          + " of them) and a summary. Streams: the log is spilled to java.io.tmpdir in key"
          + " ranges, folded one range at a time and compared with etcd read in pages.",
      "Exit status: 0 identical, 1 divergent, 2 bad settings."
    })
final class AuditCommand implements Callable<Integer> {
  /** Divergent keys listed at most; the rest are counted. */
  static final int LISTED = 1000;

  @Mixin SettingsOptions settings;
  @Mixin OpsOptions ops;

  @Mixin LogEndOptions logEnd;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    LogEnd until = logEnd.end();
    DemandfoldConfig config = ops.load(settings).requireKafka().requireEtcd();
    EtcdLayout layout = config.layout();
    boolean tables = config.getBoolean(DemandfoldConfig.MIRROR_TABLES);
    Audit.Streamed audit;
    try (Spill spill = Spill.create()) {
      ProgressReplay.Spilled replayed =
          ProgressReplay.spill(config, until, "audit", spec.commandLine().getErr(), spill);
      try (Client etcd = config.etcd().connect()) {
        audit =
            Audit.stream(
                spill,
                etcd.getKVClient(),
                layout,
                tables,
                config.getInt(DemandfoldConfig.ETCD_MAX_REQUEST_BYTES),
                config.getLong(DemandfoldConfig.ETCD_REQUEST_TIMEOUT_MS),
                LISTED);
      }
      replayed.finish();
    }
    Audit.Report report = audit.report();
    PrintWriter out = spec.commandLine().getOut();
    for (Audit.Divergence d : report.divergences()) {
      out.printf(
          "%-9s %s%n",
          d.kind().name().toLowerCase(java.util.Locale.ROOT), Printable.escape(d.key()));
      if (d.expected() != null) {
        out.println("  expected: " + Printable.escape(d.expected()));
      }
      if (d.actual() != null) {
        out.println("  actual:   " + Printable.escape(d.actual()));
      }
    }
    if (report.truncated()) {
      out.printf(
          "(listed the first %d of %d divergent keys)%n",
          report.divergences().size(), report.divergent());
    }
    out.printf(
        "audit: %s: %d keys compared under %s at etcd revision %d%s: %d identical, %d missing,"
            + " %d extra, %d different%n",
        report.identical() ? "IDENTICAL" : "DIVERGENT",
        report.compared(),
        layout.prefix(),
        audit.revision(),
        until.asOfMs() == null ? "" : " with the log " + until.describe(),
        report.compared() - report.divergent(),
        report.count(Audit.Kind.MISSING),
        report.count(Audit.Kind.EXTRA),
        report.count(Audit.Kind.DIFFERENT));
    out.flush();
    return report.identical() ? 0 : 1;
  }
}
