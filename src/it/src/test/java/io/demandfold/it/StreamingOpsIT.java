package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Events;
import io.demandfold.core.Keys;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.JsonCodec;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code audit} and {@code rebuild} stream: run as child processes with a heap far smaller than the
 * log's fold, the etcd snapshot and the expected values held together (the former in-memory
 * commands ran out of memory on this log at this heap), they rebuild a prefix, find it identical,
 * and find a changed, a deleted and an extra key.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class StreamingOpsIT {
  /** Targets, all of one long common name prefix, so that the spill splits its buckets deeper. */
  private static final int TARGETS = Integer.getInteger("streaming.it.targets", 600);

  private static final int SHARDS = 100;
  private static final String HEAP = System.getProperty("streaming.it.heap", "-Xmx64m");

  /** The jar to run; another build's can be given to compare. */
  private static final String JAR =
      System.getProperty("streaming.it.jar", ChildProcessor.JAR.toString());

  @Test
  void shouldAuditAndRebuildALargeLogInASmallHeap(Services services, @TempDir Path dir)
      throws Exception {
    try (Harness h = new Harness(services, "stream")) {
      services.createTopic(h.eventsTopic, 6, Map.of());
      h.awaitTopicReady(h.eventsTopic);
      Random rnd = new Random(21);
      long events = 0;
      for (int t = 0; t < TARGETS; t++) {
        String target = String.format("stream-table-%05d", t);
        for (int s = 0; s < SHARDS; s++) {
          int n = 1 + rnd.nextInt(2);
          for (int i = 0; i < n; i++) {
            DemandEvent e =
                new DemandEvent(
                    target, Events.writer(Integer.toString(s), 1 + rnd.nextInt(40), 1, 1_000 + i));
            byte[] value = rnd.nextBoolean() ? JsonCodec.encodeEvent(e) : AvroCodec.encodeEvent(e);
            h.produceRaw(e.key().getBytes(StandardCharsets.UTF_8), value);
            events++;
          }
        }
      }
      h.flush();
      long keys = (long) TARGETS * SHARDS + TARGETS;

      Child rebuilt = child(h, dir, "rebuild");
      assertThat(rebuilt.exit).as(rebuilt.output).isZero();
      assertThat(rebuilt.output)
          .contains("wrote " + keys + ", unchanged 0")
          .contains("failed 0")
          .contains(String.format("rebuild: %,d events", events))
          .contains((TARGETS * SHARDS) + " shards of " + TARGETS + " targets");

      Child identical = child(h, dir, "audit");
      assertThat(identical.exit).as(identical.output).isZero();
      assertThat(identical.output)
          .contains("audit: IDENTICAL: " + keys + " keys compared")
          .contains("0 missing, 0 extra, 0 different");

      KV kv = services.etcdClient().getKVClient();
      String changed = h.layout().shardKey(Keys.shardKey("stream-table-00007", "10"));
      String deleted = h.layout().shardKey(Keys.shardKey("stream-table-00300", "9"));
      String extra = h.layout().shardKey(Keys.shardKey("stream-table-00599", "100"));
      String altered =
          "{\"v\":1,\"shard\":\"10\",\"sealed_through\":1,\"sealed_bytes_through\":0,"
              + "\"merged_through\":null,\"flushed_at_ms\":1,\"writer_epoch\":1,\"source\":\"writer\"}";
      kv.put(bytes(changed), bytes(altered)).get(10, TimeUnit.SECONDS);
      kv.delete(bytes(deleted)).get(10, TimeUnit.SECONDS);
      kv.put(bytes(extra), bytes(altered)).get(10, TimeUnit.SECONDS);

      Child divergent = child(h, dir, "audit");
      assertThat(divergent.exit).as(divergent.output).isEqualTo(1);
      assertThat(divergent.output)
          .contains("different " + changed + "\n")
          .contains("  actual:   " + altered)
          .contains("missing   " + deleted + "\n")
          .contains("extra     " + extra + "\n")
          .contains("audit: DIVERGENT: " + (keys + 1) + " keys compared")
          .contains("1 missing, 1 extra, 1 different");
      try (var left = Files.list(dir.resolve("tmp"))) {
        assertThat(left).as("the spills are deleted").isEmpty();
      }
    }
  }

  private record Child(int exit, String output) {}

  /** Runs {@code demandfold <command>} in a JVM of heap {@link #HEAP}; prints its time. */
  private static Child child(Harness h, Path dir, String command) throws Exception {
    Path tmp = Files.createDirectories(dir.resolve("tmp"));
    Path log = dir.resolve(command + ".log");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of(HEAP.split(" ")));
    cmd.addAll(
        List.of(
            "-Djava.io.tmpdir=" + tmp,
            "-jar",
            JAR,
            command,
            "--bootstrap-servers",
            h.services.bootstrapServers(),
            "--etcd-endpoints",
            h.services.etcdEndpoint(),
            "--set",
            "topics.events=" + h.eventsTopic,
            "--prefix",
            h.prefix));
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("DEMANDFOLD_"));
    long start = System.nanoTime();
    Process p = pb.start();
    if (!p.waitFor(Long.getLong("streaming.it.wait.s", 180), TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      throw new AssertionError(command + " did not end in 180 s:\n" + Files.readString(log));
    }
    System.out.printf(
        "StreamingOpsIT: %s %s took %.1f s%n", HEAP, command, (System.nanoTime() - start) / 1e9);
    String keep = System.getProperty("streaming.it.logs");
    if (keep != null) {
      Files.copy(log, Path.of(keep, command + "-" + System.nanoTime() + ".log"));
    }
    return new Child(p.exitValue(), Files.readString(log));
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
