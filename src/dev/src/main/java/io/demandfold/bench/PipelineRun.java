package io.demandfold.bench;

import io.demandfold.app.DemandfoldService;
import io.demandfold.config.DemandfoldConfig;
import io.demandfold.config.SettingsLoader;
import io.demandfold.core.Fold;
import io.demandfold.mirror.RecordKind;
import io.demandfold.ops.Audit;
import io.demandfold.ops.EtcdSnapshot;
import io.etcd.jetcd.Client;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.streams.KafkaStreams;

/**
 * (b) demandfold folding the topic from offset 0 with the mirror on, timed from the moment the
 * streams run until etcd holds exactly the offline fold.
 */
final class PipelineRun implements AutoCloseable {
  private final DemandfoldService service;
  private final DemandfoldConfig config;
  private final AtomicLong peakHeap = new AtomicLong();
  private final AtomicLong peakDirty = new AtomicLong();
  private volatile boolean sampling = true;
  private long streamCpuNanos;
  private Map<String, Long> cpuByThreadGroup = Map.of();
  private long processCpuNanos;
  private final Thread sampler;

  /** The configuration of the pipeline under test. */
  static DemandfoldConfig config(Map<String, String> settings) {
    SettingsLoader l = new SettingsLoader();
    settings.forEach((k, v) -> l.flag(k, v, "bench"));
    return l.load();
  }

  PipelineRun(DemandfoldConfig config) throws InterruptedException {
    this.config = config;
    this.service = DemandfoldService.start(config, new SimpleMeterRegistry());
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    this.sampler =
        new Thread(
            () -> {
              while (sampling) {
                peakHeap.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                peakDirty.accumulateAndGet(
                    service.metrics().dirtyKeys(RecordKind.SHARD)
                        + service.metrics().dirtyKeys(RecordKind.TABLE),
                    Math::max);
                try {
                  Thread.sleep(50);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "bench-sampler");
    sampler.setDaemon(true);
    sampler.start();
  }

  DemandfoldService service() {
    return service;
  }

  DemandfoldConfig config() {
    return config;
  }

  /**
   * Seconds from RUNNING until the last event was folded, and until etcd held exactly the offline
   * fold.
   */
  record Times(double halfSeconds, double foldSeconds, double convergeSeconds) {}

  /**
   * Waits until every one of {@code events} is folded, both outboxes are empty and etcd equals
   * {@code expected}.
   */
  Times awaitMirrored(long events, Fold expected, Client etcd, long patienceMs) throws Exception {
    long deadline = System.nanoTime() + patienceMs * 1_000_000;
    while (service.streams().state() != KafkaStreams.State.RUNNING) {
      check(deadline, "the streams to run");
      Thread.sleep(5);
    }
    jdk.jfr.Recording jfr = startRecording();
    long t0 = System.nanoTime();
    Map<String, Long> threads0 = threadCpuNow();
    long cpu0 = currentStreamThreadsCpu();
    long proc0 = currentProcessCpu();
    boolean tables = config.getBoolean(DemandfoldConfig.MIRROR_TABLES);
    boolean mirrorShards = config.getBoolean(DemandfoldConfig.MIRROR_ENABLED);
    var expectedValues =
        Audit.expected(
            expected,
            config.layout(),
            tables,
            config.getInt(DemandfoldConfig.ETCD_MAX_REQUEST_BYTES));
    long folded = 0;
    long half = 0;
    while (true) {
      long count = service.metrics().foldedCounts().total();
      if (half == 0 && count >= events / 2) {
        half = System.nanoTime();
      }
      if (folded == 0 && count >= events) {
        folded = System.nanoTime();
      }
      // an instance that does not mirror keeps its keys dirty for one that does
      boolean shardsDone = !mirrorShards || service.metrics().dirtyKeys(RecordKind.SHARD) == 0;
      boolean tablesDone = !tables || service.metrics().dirtyKeys(RecordKind.TABLE) == 0;
      if (folded != 0 && shardsDone && tablesDone) {
        long t1 = System.nanoTime();
        stopRecording(jfr);
        Map<String, Long> threads1 = threadCpuNow();
        cpuByThreadGroup = new java.util.TreeMap<>();
        threads1.forEach((k, v) -> cpuByThreadGroup.put(k, v - threads0.getOrDefault(k, 0L)));
        streamCpuNanos = currentStreamThreadsCpu() - cpu0;
        processCpuNanos = currentProcessCpu() - proc0;
        Times times = new Times((half - t0) / 1e9, (folded - t0) / 1e9, (t1 - t0) / 1e9);
        if (!config.getBoolean(DemandfoldConfig.MIRROR_ENABLED)) {
          return times; // etcd is compared when shard records are mirrored
        }
        EtcdSnapshot s =
            EtcdSnapshot.read(etcd.getKVClient(), config.layout().prefix() + "/", 30_000);
        if (Audit.compare(expectedValues, s, config.layout(), tables).identical()) {
          return times;
        }
      }
      check(deadline, folded == 0 ? "every event to be folded" : "etcd to equal the offline fold");
      Thread.sleep(folded == 0 ? 5 : 20);
    }
  }

  /**
   * A JFR recording ({@code profile} settings) of the pipeline run when the system property {@code
   * demandfold.bench.jfr} names a file, else {@code null}.
   */
  private static jdk.jfr.Recording startRecording() throws java.io.IOException {
    String file = System.getProperty("demandfold.bench.jfr");
    if (file == null) {
      return null;
    }
    try {
      jdk.jfr.Recording r =
          new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
      r.setDestination(java.nio.file.Path.of(file));
      r.start();
      return r;
    } catch (java.text.ParseException e) {
      throw new IllegalStateException("cannot read the JFR profile settings", e);
    }
  }

  private static void stopRecording(jdk.jfr.Recording r) {
    if (r != null && r.getState() == jdk.jfr.RecordingState.RUNNING) {
      r.stop();
      r.close();
    }
  }

  /**
   * CPU time (ns) and bytes allocated since start of every live thread, summed by name with digits,
   * client ids and the application id taken out (so that "StreamThread-1" and "StreamThread-2"
   * count together); the bytes under the name with " (bytes allocated)".
   */
  private static Map<String, Long> threadCpuNow() {
    java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<String, Long> out = new java.util.TreeMap<>();
    for (java.lang.management.ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (t == null) {
        continue;
      }
      String name =
          t.getThreadName()
              .replaceAll("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "")
              .replaceAll("clientId=[^,\\]]*", "")
              .replaceAll("[0-9]+", "N");
      out.merge(name, Math.max(0, threads.getThreadCpuTime(t.getThreadId())), Long::sum);
      if (threads instanceof com.sun.management.ThreadMXBean sun) {
        out.merge(
            name + " (bytes allocated)",
            Math.max(0, sun.getThreadAllocatedBytes(t.getThreadId())),
            Long::sum);
      }
    }
    out.putAll(nativeThreadCpu());
    return out;
  }

  /**
   * CPU time (ns) of the JVM's own threads, which Java does not list (garbage collection, the JIT
   * compilers), from {@code /proc/self/task} on Linux, by thread name with digits taken out and a
   * "jvm: " before it; empty elsewhere.
   */
  private static Map<String, Long> nativeThreadCpu() {
    Map<String, Long> out = new java.util.TreeMap<>();
    java.nio.file.Path tasks = java.nio.file.Path.of("/proc/self/task");
    if (!java.nio.file.Files.isDirectory(tasks)) {
      return out;
    }
    try (var dirs = java.nio.file.Files.list(tasks)) {
      for (java.nio.file.Path t : dirs.toList()) {
        try {
          String comm = java.nio.file.Files.readString(t.resolve("comm")).trim();
          if (!(comm.startsWith("GC")
              || comm.startsWith("G1")
              || comm.startsWith("C1")
              || comm.startsWith("C2")
              || comm.startsWith("VM "))) {
            continue;
          }
          long ns = ProcessCpu.statNanos(t.resolve("stat"));
          out.merge("jvm: " + comm.replaceAll("[0-9]+", "N"), ns, Long::sum);
        } catch (java.io.IOException | RuntimeException e) {
          // a thread that ended meanwhile
        }
      }
    } catch (java.io.IOException e) {
      return out;
    }
    return out;
  }

  /** CPU time by thread group during the last {@link #awaitMirrored}, largest first. */
  Map<String, Long> cpuByThreadGroup() {
    Map<String, Long> out = new java.util.LinkedHashMap<>();
    cpuByThreadGroup.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .forEach(e -> out.put(e.getKey(), e.getValue()));
    return out;
  }

  /** CPU time of the stream threads since start. */
  private static long currentStreamThreadsCpu() {
    java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long total = 0;
    for (java.lang.management.ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (t != null && t.getThreadName().contains("StreamThread")) {
        total += Math.max(0, threads.getThreadCpuTime(t.getThreadId()));
      }
    }
    return total;
  }

  /** CPU time of this whole process (the pipeline with its clients, and the bench itself). */
  private static long currentProcessCpu() {
    var os = ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean o ? o.getProcessCpuTime() : 0;
  }

  /** Stream threads' CPU during the last {@link #awaitMirrored}. */
  long streamCpuNanos() {
    return streamCpuNanos;
  }

  /** Process CPU during the last {@link #awaitMirrored}. */
  long processCpuNanos() {
    return processCpuNanos;
  }

  private static void check(long deadline, String what) {
    if (System.nanoTime() > deadline) {
      throw new IllegalStateException("gave up waiting for " + what);
    }
  }

  long peakHeapBytes() {
    return peakHeap.get();
  }

  long peakDirtyKeys() {
    return peakDirty.get();
  }

  long etcdRequests() {
    return service.metrics().mirror().etcdRequests();
  }

  @Override
  public void close() {
    sampling = false;
    service.close();
  }
}
