package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.demandfold.core.Keys;
import io.demandfold.core.TableRecord;
import io.demandfold.core.codec.TableJson;
import io.demandfold.local.EtcdServer;
import io.demandfold.mirror.EtcdLayout;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.PutOption;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code demandfold watch} as a child JVM of the jar against a real etcd: the ranked listing, a
 * line per change (text and JSON), a JSON line per key of a transaction and of a range delete, the
 * {@code "resynced":true} line after etcd compacted the history a disconnected watch needed, exit 0
 * on SIGTERM, exit 1 with the reason once etcd is gone.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class WatchCommandIT {
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final EtcdLayout LAYOUT = new EtcdLayout("/watch-cli");

  /** A child {@code demandfold watch}, its stdout and stderr in files. */
  private record Child(Process process, Path out, Path err) implements AutoCloseable {
    static Child start(Path dir, String name, String... args) throws IOException {
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(List.of("-Xmx256m", "-jar", ChildProcessor.JAR.toString(), "watch"));
      command.addAll(List.of(args));
      Path out = dir.resolve(name + ".out");
      Path err = dir.resolve(name + ".err");
      ProcessBuilder pb =
          new ProcessBuilder(command)
              .redirectInput(Redirect.from(Path.of("/dev/null").toFile()))
              .redirectOutput(out.toFile())
              .redirectError(err.toFile());
      pb.environment().keySet().removeIf(k -> k.startsWith("DEMANDFOLD_"));
      return new Child(pb.start(), out, err);
    }

    List<String> lines() {
      try {
        return Files.readAllLines(out, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    String stderr() {
      try {
        return Files.readString(err, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    int awaitExit() throws InterruptedException {
      if (!process.waitFor(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError("watch still runs:\n" + lines() + "\n" + stderr());
      }
      return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
      if (process.isAlive()) {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  /** Flush times from now on, so that no table is due by its age. */
  private final long base = System.currentTimeMillis();

  private long put(KV kv, String target, int shards, long sealed) throws Exception {
    TableRecord r = DemandViewIT.table(shards, sealed, base);
    return kv.put(
            ByteSequence.from(LAYOUT.tableKey(Keys.hex(target)), StandardCharsets.UTF_8),
            ByteSequence.from(TableJson.encode(r, 1 << 20)))
        .get(10, TimeUnit.SECONDS)
        .getHeader()
        .getRevision();
  }

  private Op putOp(String target, int shards, long sealed) {
    return Op.put(
        ByteSequence.from(LAYOUT.tableKey(Keys.hex(target)), StandardCharsets.UTF_8),
        ByteSequence.from(TableJson.encode(DemandViewIT.table(shards, sealed, base), 1 << 20)),
        PutOption.DEFAULT);
  }

  private static List<JsonNode> json(Child c) {
    List<JsonNode> out = new ArrayList<>();
    for (String l : c.lines()) {
      try {
        out.add(JSON.readTree(l));
      } catch (IOException e) {
        throw new AssertionError("not a JSON line: " + l, e);
      }
    }
    return out;
  }

  @Test
  void shouldListThenPrintEachChangeAResyncAndExitAsDocumented(@TempDir Path dir) throws Exception {
    AtomicBoolean cut = new AtomicBoolean();
    try (EtcdServer etcd = EtcdServer.builder().build().start();
        Client writer = Client.builder().endpoints(etcd.endpoint()).build();
        PeerProxy proxy =
            new PeerProxy(
                new ServerSocket(0, 50, InetAddress.getLoopbackAddress()),
                URI.create(etcd.endpoint()).getPort(),
                from -> cut.get())) {
      KV kv = writer.getKVClient();
      put(kv, "orders", 2, 5); // 10 pending: due
      put(kv, "logs", 1, 1); // 1 pending, sealed long ago
      put(kv, "idle", 1, 0);
      String proxied = "http://127.0.0.1:" + proxy.port();
      try (Child text =
              Child.start(
                  dir, "text", "--etcd-endpoints", etcd.endpoint(), "--prefix", LAYOUT.prefix());
          Child lines =
              Child.start(
                  dir,
                  "json",
                  "--etcd-endpoints",
                  proxied,
                  "--prefix",
                  LAYOUT.prefix(),
                  "--json",
                  "--lost-after",
                  "PT8S")) {
        try {
          Harness.await("the listing", text::lines, l -> l.size() >= 4, PATIENCE);
          Harness.await("the JSON listing", lines::lines, l -> l.size() >= 3, PATIENCE);
          List<String> listing = text.lines();
          assertThat(listing.get(0).split("\\s+"))
              .containsExactly(
                  "TARGET",
                  "CLASS",
                  "PENDING",
                  "PENDING_BYTES",
                  "OLDEST_PENDING",
                  "BOUND",
                  "SHARDS",
                  "REVISION");
          assertThat(listing.get(1)).startsWith("orders").contains(" due ").contains(" 10 ");
          // one pending generation, flushed seconds ago: below every threshold
          assertThat(listing.get(2)).startsWith("logs").contains(" pending ").contains(" 1 ");
          assertThat(listing.get(3)).startsWith("idle").contains(" idle ");
          JsonNode first = json(lines).get(0);
          assertThat(first.get("target").asText()).isEqualTo("orders");
          assertThat(first.get("class").asText()).isEqualTo("due");
          assertThat(first.get("pending_generations").asLong()).isEqualTo(10);
          assertThat(first.get("pending_bytes").asLong()).isEqualTo(10L << 20);
          assertThat(first.get("oldest_pending_ms").asLong()).isEqualTo(base + 1000);
          assertThat(first.get("oldest_pending_exact_ms").asLong()).isEqualTo(base + 1000);
          assertThat(first.has("revision")).isTrue();

          long changed = put(kv, "orders", 2, 150); // 300 pending: critical
          Harness.await("the change line", text::lines, l -> l.size() >= 5, PATIENCE);
          assertThat(text.lines().get(4))
              .startsWith("orders")
              .contains(" critical ")
              .contains(" 300 ")
              .endsWith(" " + changed);
          Harness.await("the JSON change", lines::lines, l -> l.size() >= 4, PATIENCE);
          JsonNode change = json(lines).get(3);
          assertThat(change.get("class").asText()).isEqualTo("critical");
          assertThat(change.get("revision").asLong()).isEqualTo(changed);

          text.process().destroy(); // SIGTERM
          assertThat(text.awaitExit()).as("exit status after SIGTERM").isZero();

          // three records in one transaction, then a range delete of them: a line per key
          long txn =
              kv.txn()
                  .Then(putOp("t1", 1, 2), putOp("t2", 1, 3), putOp("t3", 1, 4))
                  .commit()
                  .get(10, TimeUnit.SECONDS)
                  .getHeader()
                  .getRevision();
          long del =
              kv.delete(
                      ByteSequence.from(
                          LAYOUT.tableRecordsPrefix() + Keys.hex("t"), StandardCharsets.UTF_8),
                      DeleteOption.builder().isPrefix(true).build())
                  .get(10, TimeUnit.SECONDS)
                  .getHeader()
                  .getRevision();
          Harness.await("a JSON line per key", lines::lines, l -> l.size() >= 10, PATIENCE);
          List<JsonNode> keys = json(lines).subList(4, 10);
          assertThat(keys)
              .extracting(n -> n.get("target").asText() + "@" + n.get("revision").asLong())
              .containsExactly(
                  "t1@" + txn, "t2@" + txn, "t3@" + txn, "t1@" + del, "t2@" + del, "t3@" + del);
          assertThat(keys.get(1).get("pending_generations").asLong()).isEqualTo(3);
          assertThat(keys.subList(3, 6))
              .allSatisfy(n -> assertThat(n.get("deleted").asBoolean()).isTrue());

          cut.set(true);
          proxy.enforce();
          Thread.sleep(1000);
          put(kv, "logs", 1, 20);
          long last = put(kv, "logs", 1, 30);
          kv.compact(last).get(10, TimeUnit.SECONDS);
          cut.set(false);
          Harness.await(
              "the resynced line",
              () -> json(lines),
              l -> l.stream().anyMatch(n -> n.path("resynced").asBoolean()),
              PATIENCE);
          List<JsonNode> after = json(lines);
          JsonNode resynced = after.get(after.size() - 1);
          assertThat(resynced.get("revision").asLong()).isGreaterThanOrEqualTo(last);
          JsonNode logs = after.get(after.size() - 2);
          assertThat(logs.get("target").asText()).isEqualTo("logs");
          assertThat(logs.get("pending_generations").asLong()).isEqualTo(30);
          assertThat(logs.get("revision").asLong()).isEqualTo(last);

          etcd.kill();
          assertThat(lines.awaitExit()).as("exit status once etcd is gone").isEqualTo(1);
          assertThat(lines.stderr())
              .contains("demandfold watch: lost etcd at " + proxied)
              .contains("for more than 8 s");
        } catch (AssertionError e) {
          throw new AssertionError(
              e.getMessage()
                  + "\ntext watch printed:\n"
                  + String.join("\n", text.lines())
                  + "\n"
                  + text.stderr()
                  + "\nJSON watch printed:\n"
                  + String.join("\n", lines.lines())
                  + "\n"
                  + lines.stderr(),
              e);
        }
      }
    }
  }
}
