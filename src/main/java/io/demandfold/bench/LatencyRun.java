package io.demandfold.bench;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.Join;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.sim.FleetModel;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * (d) Latency: events offered at a fixed rate; for each, the time from just before it is produced
 * until an etcd watch sees a value of its shard that already contains it (joining the event into
 * the value changes nothing). An event that changes nothing in the fold of everything sent before
 * it is not timed: no write will ever be caused by it, and the next write of its shard, whenever
 * that comes, would be counted as its latency.
 */
final class LatencyRun {
  private LatencyRun() {}

  /**
   * Latencies in milliseconds.
   *
   * @param noops events that changed nothing when they were sent, or that etcd held at the end
   *     without a watched write showing them
   * @param lost events etcd never came to hold
   */
  record Result(
      long offered,
      long measured,
      long noops,
      long lost,
      double p50,
      double p99,
      double max,
      double p90,
      double p999,
      String slowestSeconds) {}

  private record Sent(ShardRecord record, long nanos) {}

  /** The record etcd holds at {@code key}, or {@code null}. */
  private static ShardRecord current(Client etcd, String key) {
    try {
      var kvs =
          etcd.getKVClient()
              .get(ByteSequence.from(key, StandardCharsets.UTF_8))
              .get(10, java.util.concurrent.TimeUnit.SECONDS)
              .getKvs();
      return kvs.isEmpty() ? null : JsonCodec.decodeRecord(kvs.get(0).getValue().getBytes());
    } catch (Exception e) {
      return null;
    }
  }

  @SuppressWarnings("try") // the watch only needs to be open while events are offered
  static Result run(
      int rate,
      java.time.Duration duration,
      FleetModel model,
      long clockFrom,
      Fold folded,
      String bootstrap,
      String topic,
      Client etcd,
      EtcdLayout layout)
      throws InterruptedException {
    Map<String, ConcurrentLinkedDeque<Sent>> pending = new ConcurrentHashMap<>();
    long[] latencies = new long[(int) (rate * duration.toSeconds()) + 16];
    long[] sentAt = new long[latencies.length];
    int[] count = {0};
    String from = layout.shardRecordsPrefix();
    Watch.Listener listener =
        Watch.listener(
            response -> {
              long now = System.nanoTime();
              for (WatchEvent e : response.getEvents()) {
                if (e.getEventType() != WatchEvent.EventType.PUT) {
                  continue;
                }
                String key =
                    e.getKeyValue()
                        .getKey()
                        .toString(StandardCharsets.UTF_8)
                        .substring(from.length());
                ConcurrentLinkedDeque<Sent> q = pending.get(key);
                if (q == null) {
                  continue;
                }
                ShardRecord value;
                try {
                  value = JsonCodec.decodeRecord(e.getKeyValue().getValue().getBytes());
                } catch (InvalidEventException x) {
                  continue;
                }
                for (Iterator<Sent> it = q.iterator(); it.hasNext(); ) {
                  Sent sent = it.next();
                  if (Join.join(value, sent.record) == value) {
                    it.remove();
                    synchronized (latencies) {
                      if (count[0] < latencies.length) {
                        sentAt[count[0]] = sent.nanos;
                        latencies[count[0]++] = now - sent.nanos;
                      }
                    }
                  }
                }
              }
            });
    long offered = 0;
    long noops = 0;
    try (Watch.Watcher watcher =
            etcd.getWatchClient()
                .watch(
                    ByteSequence.from(from, StandardCharsets.UTF_8),
                    WatchOption.builder().isPrefix(true).build(),
                    listener);
        KafkaProducer<byte[], byte[]> producer = EventLog.producer(bootstrap, 5)) {
      long total = rate * duration.toSeconds();
      long interval = 1_000_000_000L / rate;
      long t0 = System.nanoTime();
      for (long i = 0; i < total; i++) {
        long due = t0 + i * interval;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        }
        DemandEvent e = model.next(EventLog.START_MS + clockFrom + i);
        if (folded.add(e)) {
          pending
              .computeIfAbsent(e.key(), k -> new ConcurrentLinkedDeque<>())
              .add(new Sent(e.record(), System.nanoTime()));
        } else {
          noops++;
        }
        producer.send(EventLog.record(topic, e, i));
        offered++;
      }
      producer.flush();
      long drain = System.nanoTime() + 30_000_000_000L;
      while (pending.values().stream().anyMatch(q -> !q.isEmpty()) && System.nanoTime() < drain) {
        Thread.sleep(50);
      }
    }
    long lost = 0;
    for (Map.Entry<String, ConcurrentLinkedDeque<Sent>> e : pending.entrySet()) {
      if (e.getValue().isEmpty()) {
        continue;
      }
      ShardRecord now = current(etcd, from + e.getKey());
      for (Sent sent : e.getValue()) {
        if (now != null && Join.join(now, sent.record) == now) {
          noops++;
        } else {
          lost++;
        }
      }
    }
    long[] l;
    long[] at;
    synchronized (latencies) {
      l = Arrays.copyOf(latencies, count[0]);
      at = Arrays.copyOf(sentAt, count[0]);
    }
    String slowest = slowestSeconds(l, at);
    Arrays.sort(l);
    if (l.length == 0) {
      return new Result(
          offered, 0, noops, lost, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, "");
    }
    return new Result(
        offered,
        l.length,
        noops,
        lost,
        quantile(l, 0.5),
        quantile(l, 0.99),
        l[l.length - 1] / 1e6,
        quantile(l, 0.9),
        quantile(l, 0.999),
        slowest);
  }

  /** The {@code q} quantile of sorted nanoseconds, in milliseconds. */
  private static double quantile(long[] sorted, double q) {
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * q) - 1)] / 1e6;
  }

  /**
   * The five seconds of the run whose events waited longest, as "second:max ms", to tell a steady
   * tail from stalls at a period (commits, GC, etcd's compaction).
   */
  private static String slowestSeconds(long[] latencies, long[] sentAt) {
    if (latencies.length == 0) {
      return "";
    }
    long first = Arrays.stream(sentAt).min().orElse(0);
    java.util.Map<Long, Long> worst = new java.util.TreeMap<>();
    for (int i = 0; i < latencies.length; i++) {
      worst.merge((sentAt[i] - first) / 1_000_000_000L, latencies[i], Math::max);
    }
    return worst.entrySet().stream()
        .sorted(java.util.Map.Entry.<Long, Long>comparingByValue().reversed())
        .limit(5)
        .map(e -> e.getKey() + "s:" + e.getValue() / 1_000_000 + "ms")
        .collect(java.util.stream.Collectors.joining(" "));
  }
}
