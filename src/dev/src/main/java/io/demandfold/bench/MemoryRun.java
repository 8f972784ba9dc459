package io.demandfold.bench;

import io.demandfold.sim.FleetModel;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * (e) Memory: a real {@code demandfold run} process with a capped heap folds one event for each of
 * many distinct shards; once etcd holds them all, its live heap is read with {@code jcmd} after a
 * full GC.
 */
final class MemoryRun {
  private MemoryRun() {}

  /**
   * The figures of (e): the live heap in MiB, and how often the process's mirror saw etcd lose
   * writes (in its log: {@link EtcdRewinds}).
   */
  record Result(double heapMib, long etcdRewinds) {}

  /** The figures, or a failure naming the step. */
  static Result run(BenchSettings s, String bootstrap, String etcdEndpoint, Client etcd, Path work)
      throws Exception {
    String topic = "bench.memory.events";
    String prefix = "/bench/memory";
    int perTarget = 100;
    FleetModel model = new FleetModel(EventLog.SEED + 1, s.memoryShards() / perTarget, perTarget);
    Path log = work.resolve("memory-run.log");
    Process p =
        new ProcessBuilder(
                List.of(
                    "java",
                    "-Xmx" + s.memoryHeap(),
                    "-cp",
                    System.getProperty("java.class.path"),
                    "io.demandfold.cli.Main",
                    "run",
                    "--bootstrap-servers",
                    bootstrap,
                    "--etcd-endpoints",
                    etcdEndpoint,
                    "--application-id",
                    "bench-memory",
                    "--set",
                    "etcd.prefix=" + prefix,
                    "--set",
                    "topics.events=" + topic,
                    "--set",
                    "topics.dlq=bench.memory.dlq",
                    "--set",
                    "topics.shard.records=bench.memory.shard-records",
                    "--set",
                    "topics.table.demand=bench.memory.table-demand",
                    "--set",
                    "kafka.state.dir=" + work.resolve("memory-state")))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      awaitTopic(bootstrap, topic, p, log);
      try (KafkaProducer<byte[], byte[]> producer = EventLog.producer(bootstrap, 20)) {
        for (int i = 0; i < model.shardCount(); i++) {
          producer.send(EventLog.record(topic, model.flush(i, EventLog.START_MS + i), i));
        }
        producer.flush();
      }
      ByteSequence from = ByteSequence.from(prefix + "/demand-events/", StandardCharsets.UTF_8);
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
      while (count(etcd, from) < model.shardCount()) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "the memory run did not mirror " + model.shardCount() + " shards; see " + log);
        }
        Thread.sleep(500);
      }
      double heap = JvmProbe.liveHeapMib(p.pid());
      return new Result(heap, EtcdRewinds.inLogs(log));
    } finally {
      p.destroy();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
  }

  private static void awaitTopic(String bootstrap, String topic, Process p, Path log)
      throws Exception {
    try (var admin =
        org.apache.kafka.clients.admin.Admin.create(
            java.util.Map.of("bootstrap.servers", bootstrap))) {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (!admin.listTopics().names().get().contains(topic)) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "the memory run did not start; see " + log + ":\n" + Files.readString(log));
        }
        Thread.sleep(200);
      }
      Thread.sleep(2000);
    }
  }

  private static long count(Client etcd, ByteSequence prefix) throws Exception {
    return etcd.getKVClient()
        .get(prefix, GetOption.builder().isPrefix(true).withCountOnly(true).build())
        .get(10, TimeUnit.SECONDS)
        .getCount();
  }
}
