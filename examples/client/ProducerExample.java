import io.demandfold.client.DemandPublisher;
import io.demandfold.client.DemandPublisher.Result;
import io.demandfold.client.DemandPublisher.ScanWatermarks;
import io.demandfold.core.Source;
import java.time.Duration;
import java.util.Map;

/**
 * A producer that depends on demandfold-client alone: a writer flushes three generations of one
 * shard, an executor merges two of them, and a scan reports a second shard. It prints what was sent
 * and exits 1 when an event was not acknowledged.
 *
 * <pre>
 * # CLASSPATH: the class path of a project that depends on it (docs/operations.md)
 * java -cp "$CLASSPATH" \
 *     examples/client/ProducerExample.java BOOTSTRAP [TOPIC [TARGET]]
 * </pre>
 */
public final class ProducerExample {
  private static final long MIB = 1 << 20;
  private static final long T0 = 1_764_400_000_000L;

  private ProducerExample() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length < 1 || args.length > 3) {
      System.err.println("usage: ProducerExample BOOTSTRAP [TOPIC [TARGET]]");
      System.exit(2);
    }
    String topic = args.length > 1 ? args[1] : "demand.events";
    String target = args.length > 2 ? args[2] : "orders";
    try (DemandPublisher p = DemandPublisher.builder(args[0]).topic(topic).build()) {
      for (long generation = 1; generation <= 3; generation++) {
        p.writerFlushed(target, "shard-1", generation, generation * MIB, 1, T0 + generation * 1000);
      }
      p.executorMerged(target, "shard-1", 2, 1, T0 + 4000);
      p.scan(target, Map.of("shard-2", new ScanWatermarks(5, 5 * MIB, 4L, 3)), T0 + 5000);
      boolean acknowledged = p.flush(Duration.ofSeconds(30));
      long sent = 0;
      long lost = 0;
      for (Source source : Source.values()) {
        sent += p.count(source, Result.SENT);
        lost += p.count(source, Result.DROPPED) + p.count(source, Result.FAILED);
        lost += p.count(source, Result.TIMEOUT);
      }
      System.out.println("sent=" + sent + " lost=" + lost);
      if (!acknowledged || lost > 0) {
        System.exit(1);
      }
    }
  }
}
