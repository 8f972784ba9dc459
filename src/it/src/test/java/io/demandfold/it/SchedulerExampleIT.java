package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.Keys;
import io.demandfold.core.codec.TableJson;
import io.demandfold.examples.DueTables;
import io.demandfold.local.EtcdServer;
import io.demandfold.mirror.EtcdLayout;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The example of docs/consumers.md, {@link DueTables}, against a real etcd: its first round lists
 * the due tables most urgent first, a change wakes it for another round, and it stops when told.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SchedulerExampleIT {
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final EtcdLayout LAYOUT = new EtcdLayout("/example");

  private static void put(KV kv, String target, int shards, long sealed) throws Exception {
    kv.put(
            ByteSequence.from(LAYOUT.tableKey(Keys.hex(target)), StandardCharsets.UTF_8),
            ByteSequence.from(
                TableJson.encode(
                    DemandViewIT.table(shards, sealed, System.currentTimeMillis()), 1 << 20)))
        .get(10, TimeUnit.SECONDS);
  }

  @Test
  void shouldPrintTheDueTablesMostUrgentFirstOnEveryChange() throws Exception {
    try (EtcdServer etcd = EtcdServer.builder().build().start();
        Client writer = Client.builder().endpoints(etcd.endpoint()).build()) {
      KV kv = writer.getKVClient();
      put(kv, "orders", 2, 5); // 10 pending: due
      put(kv, "logs", 1, 300); // critical
      put(kv, "quiet", 1, 2); // pending, below the thresholds (flushed just now)
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
      CountDownLatch stop = new CountDownLatch(1);
      AtomicReference<Throwable> failed = new AtomicReference<>();
      Thread t =
          new Thread(
              () -> {
                try {
                  DueTables.run(List.of(etcd.endpoint()), LAYOUT.prefix(), out, stop);
                } catch (Throwable e) {
                  failed.set(e);
                }
              },
              "due-tables");
      t.start();
      try {
        Harness.await(
            "the first round",
            () -> bytes.toString(StandardCharsets.UTF_8),
            s -> s.contains("due orders"),
            PATIENCE);
        String first = bytes.toString(StandardCharsets.UTF_8);
        assertThat(first.lines().toList())
            .containsSubsequence(
                "  critical logs: 300 generations, 314572800 bytes pending",
                "  due orders: 10 generations, 10485760 bytes pending");
        assertThat(first).doesNotContain("quiet");

        put(kv, "quiet", 1, 400); // now the most urgent
        Harness.await(
            "a round after the change",
            () -> bytes.toString(StandardCharsets.UTF_8),
            s -> s.contains("critical quiet"),
            PATIENCE);
        String all = bytes.toString(StandardCharsets.UTF_8);
        List<String> lastRound =
            List.of(all.substring(all.lastIndexOf("due at revision")).split("\n"));
        assertThat(lastRound.subList(1, 4))
            .containsExactly(
                "  critical quiet: 400 generations, 419430400 bytes pending",
                "  critical logs: 300 generations, 314572800 bytes pending",
                "  due orders: 10 generations, 10485760 bytes pending");
      } finally {
        stop.countDown();
        t.join(30_000);
      }
      assertThat(t.isAlive()).as("the example stops when told").isFalse();
      assertThat(failed.get()).isNull();
    }
  }
}
