package io.demandfold.bench;

import io.demandfold.app.DemandfoldService;
import io.demandfold.config.DemandfoldConfig;
import io.demandfold.config.SettingsLoader;
import io.demandfold.core.Fold;
import io.demandfold.mirror.MirrorMetrics.Kind;
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
                    service.metrics().dirtyKeys(Kind.SHARD)
                        + service.metrics().dirtyKeys(Kind.TABLE),
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
  record Times(double foldSeconds, double convergeSeconds) {}

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
    long t0 = System.nanoTime();
    long cpu0 = currentStreamThreadsCpu();
    long proc0 = currentProcessCpu();
    boolean tables = config.getBoolean(DemandfoldConfig.MIRROR_TABLES);
    var expectedValues =
        Audit.expected(
            expected,
            config.layout(),
            tables,
            config.getInt(DemandfoldConfig.ETCD_MAX_REQUEST_BYTES));
    long folded = 0;
    while (true) {
      long[] counts = service.metrics().foldedCounts();
      if (folded == 0 && counts[0] + counts[1] >= events) {
        folded = System.nanoTime();
      }
      if (folded != 0
          && service.metrics().dirtyKeys(Kind.SHARD) == 0
          && service.metrics().dirtyKeys(Kind.TABLE) == 0) {
        long t1 = System.nanoTime();
        streamCpuNanos = currentStreamThreadsCpu() - cpu0;
        processCpuNanos = currentProcessCpu() - proc0;
        Times times = new Times((folded - t0) / 1e9, (t1 - t0) / 1e9);
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
