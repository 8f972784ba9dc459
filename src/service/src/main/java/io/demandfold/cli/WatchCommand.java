package io.demandfold.cli;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.core.DemandClasses;
import io.demandfold.view.DemandListener;
import io.demandfold.view.DemandView;
import io.demandfold.view.TableChange;
import io.demandfold.view.TableDemand;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code demandfold watch}: the table records of etcd as a live {@link DemandView} holds them, a
 * ranked listing and then a line per change, until stopped.
 */
@Command(
    name = "watch",
    mixinStandardHelpOptions = true,
    description = {
      "Prints the demand etcd holds (every table record, in urgency order: critical, due, pending,"
          + " idle), then one line per change as it happens, like 'kubectl get -w'.",
      "Exit status: 0 when stopped by Ctrl-C or SIGTERM, 1 when etcd cannot be read or is lost for"
          + " --lost-after (the reason on stderr), 2 a bad flag."
    })
final class WatchCommand implements Callable<Integer> {
  /** Resync markers in the queue of what to print. */
  private record Resynced(long revision) {}

  @Mixin SettingsOptions settings;
  @Mixin OpsOptions ops;

  @Option(names = "--target", paramLabel = "TABLE", description = "Only this target.")
  String target;

  @Option(
      names = "--json",
      description =
          "JSON lines: one object per table and per change (\"deleted\":true, \"refused\":REASON),"
              + " {\"resynced\":true,\"revision\":R} after a resync.")
  boolean json;

  @Option(
      names = "--lost-after",
      defaultValue = "PT10S",
      paramLabel = "DURATION",
      description = "Give up (exit 1) once etcd has not answered the watch for this long.")
  Duration lostAfter;

  @Spec CommandSpec spec;

  private final CountDownLatch stop = new CountDownLatch(1);
  private final CountDownLatch done = new CountDownLatch(1);

  @Override
  public Integer call() throws Exception {
    if (lostAfter.isNegative() || lostAfter.isZero()) {
      throw new ParameterException(spec.commandLine(), "--lost-after must be positive");
    }
    DemandfoldConfig config = ops.load(settings).requireEtcd();
    PrintWriter out = spec.commandLine().getOut();
    LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    // Ctrl-C and SIGTERM end a watch normally: once the view is closed and the output flushed, the
    // hook halts with status 0 instead of the signal's 130 or 143
    Thread hook = new Thread(this::stopped, "demandfold-watch-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    DemandView view =
        DemandView.builder()
            .settings(config.etcd())
            .prefix(config.layout().prefix())
            .classes(DemandClasses.defaults())
            .build();
    try {
      view.addListener(
          new DemandListener() {
            @Override
            public void changed(TableChange c) {
              if (target == null || target.equals(c.target())) {
                queue.add(c);
              }
            }

            @Override
            public void resynced(long revision) {
              queue.add(new Resynced(revision));
            }
          });
      view.start();
      return watch(
          view, queue, out, String.join(",", config.getList(DemandfoldConfig.ETCD_ENDPOINTS)));
    } finally {
      view.close();
      out.flush();
      done.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // stopping by a signal: the hook ends the JVM
      }
    }
  }

  private int watch(
      DemandView view, LinkedBlockingQueue<Object> queue, PrintWriter out, String endpoints)
      throws InterruptedException {
    WatchLines lines = new WatchLines(json);
    Map<String, TableDemand> shown = view.tables();
    List<TableDemand> listing = new ArrayList<>();
    shown.values().stream()
        .filter(t -> target == null || target.equals(t.target()))
        .sorted(DemandView.Order.URGENCY.comparator())
        .forEach(listing::add);
    lines.listing(listing, System.currentTimeMillis()).forEach(out::println);
    out.flush();
    while (true) {
      Object next = queue.poll(200, TimeUnit.MILLISECONDS);
      if (stop.getCount() == 0) {
        return 0;
      }
      if (next instanceof TableChange c) {
        TableDemand listed = shown.get(c.target());
        if (listed == null || c.revision() > listed.revision()) {
          out.println(lines.change(c, System.currentTimeMillis()));
          out.flush();
        }
      } else if (next instanceof Resynced r) {
        out.println(lines.resynced(r.revision()));
        out.flush();
      }
      DemandView.Status s = view.status();
      if (!s.live() && System.currentTimeMillis() - s.sinceMs() > lostAfter.toMillis()) {
        spec.commandLine()
            .getErr()
            .println(
                "demandfold watch: lost etcd at "
                    + endpoints
                    + " (prefix "
                    + view.prefix()
                    + ") for more than "
                    + lostAfter.toSeconds()
                    + " s: "
                    + s.problem());
        return 1;
      }
    }
  }

  /** The shutdown hook: ends the watch, waits for the output, then exits 0. */
  private void stopped() {
    stop.countDown();
    try {
      done.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Runtime.getRuntime().halt(0);
  }
}
