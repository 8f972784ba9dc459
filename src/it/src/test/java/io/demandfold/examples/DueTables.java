package io.demandfold.examples;

import io.demandfold.core.Urgency;
import io.demandfold.view.DemandListener;
import io.demandfold.view.DemandView;
import io.demandfold.view.TableChange;
import io.demandfold.view.TableDemand;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler's loop over {@link DemandView} (docs/consumers.md shows it): on every change, the
 * tables that are due, most urgent first, where a scheduler would start merges. Run it with {@code
 * DueTables http://127.0.0.1:2379 /demandfold}; {@code SchedulerExampleIT} runs it against a real
 * etcd.
 */
public final class DueTables {
  private DueTables() {}

  public static void main(String[] args) throws InterruptedException {
    run(
        List.of(args[0].split(",")),
        args.length > 1 ? args[1] : "/demandfold",
        System.out,
        new CountDownLatch(1));
  }

  // example:begin
  /** Prints the due tables each time the demand changes, until {@code stop} is counted down. */
  public static void run(
      List<String> endpoints, String prefix, PrintStream out, CountDownLatch stop)
      throws InterruptedException {
    Semaphore changed = new Semaphore(1); // a first round at once
    try (DemandView view = DemandView.builder().endpoints(endpoints).prefix(prefix).build()) {
      view.addListener(
          new DemandListener() {
            @Override
            public void changed(TableChange change) { // on the view's thread: only wake up
              changed.release();
            }

            @Override
            public void resynced(long revision) {
              changed.release();
            }
          });
      view.start(); // the snapshot; throws, saying why, when etcd cannot be read
      while (stop.getCount() > 0) {
        if (!changed.tryAcquire(1, TimeUnit.SECONDS)) {
          continue; // nothing new; a real scheduler also looks again as tables age
        }
        changed.drainPermits(); // one round for a burst of changes
        out.println("due at revision " + view.revision() + ":");
        for (TableDemand t : view.top(20, DemandView.Order.URGENCY)) {
          if (t.urgency() == Urgency.PENDING) {
            break; // the rest are below every threshold
          }
          out.printf(
              "  %s %s: %d generations, %d bytes pending%n",
              t.urgency().wire(), t.target(), t.pendingGenerations(), t.pendingBytes());
          // here a scheduler starts (or keeps) a merge of t.target()
        }
      }
    }
  }
  // example:end
}
