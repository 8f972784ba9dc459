import io.demandfold.core.Urgency;
import io.demandfold.view.DemandView;
import io.demandfold.view.TableChange;
import io.demandfold.view.TableDemand;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler's reader that depends on demandfold-view alone: it opens a {@link DemandView} on
 * etcd, prints the due tables of its snapshot most urgent first, then waits for one change of a
 * table record, prints it and closes the view. It exits 1 when no change comes within the wait.
 *
 * <pre>
 * # CLASSPATH: the class path of a project that depends on it (docs/operations.md)
 * java -cp "$CLASSPATH" \
 *     examples/client/ViewExample.java ENDPOINTS [PREFIX [WAIT_SECONDS]]
 * </pre>
 */
public final class ViewExample {
  private ViewExample() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length < 1 || args.length > 3) {
      System.err.println("usage: ViewExample ENDPOINTS [PREFIX [WAIT_SECONDS]]");
      System.exit(2);
    }
    List<String> endpoints = List.of(args[0].split(","));
    String prefix = args.length > 1 ? args[1] : "/demandfold";
    long waitSeconds = args.length > 2 ? Long.parseLong(args[2]) : 60;
    BlockingQueue<TableChange> changes = new LinkedBlockingQueue<>();
    TableChange heard;
    try (DemandView view = DemandView.builder().endpoints(endpoints).prefix(prefix).build()) {
      view.addListener(changes::add); // called on the view's thread: only hand the change over
      view.start(); // loads the snapshot; throws, saying why, when etcd cannot be read
      System.out.println(
          "snapshot at revision " + view.revision() + ": " + view.tables().size() + " tables");
      for (TableDemand t : view.top(10, DemandView.Order.URGENCY)) {
        if (t.urgency() == Urgency.PENDING) {
          break; // the rest are below every threshold
        }
        System.out.printf(
            "  %s %s: %d generations, %d bytes pending%n",
            t.urgency().wire(), t.target(), t.pendingGenerations(), t.pendingBytes());
      }
      System.out.println("waiting for a change");
      heard = changes.poll(waitSeconds, TimeUnit.SECONDS);
      if (heard != null) {
        System.out.printf(
            "change of %s at revision %d: %s -> %s%n",
            heard.target(),
            heard.revision(),
            describe(heard.old(), null),
            describe(heard.current(), heard.refused()));
      }
    }
    if (heard == null) {
      System.out.println("no change within " + waitSeconds + " s");
      System.exit(1);
    }
  }

  private static String describe(TableDemand t, String refused) {
    if (t == null) {
      return refused != null ? "refused (" + refused + ")" : "none";
    }
    return t.urgency().wire() + " " + t.pendingGenerations() + " generations";
  }
}
