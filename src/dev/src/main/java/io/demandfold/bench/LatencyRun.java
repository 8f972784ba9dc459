package io.demandfold.bench;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Join;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.sim.FleetModel;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * (d) Latency: events offered at a fixed rate; for each, the time from just before it is produced
 * until an etcd watch sees a value of its shard that already contains it (joining the event into
 * the value changes nothing). An event that changes nothing in the fold of everything sent before
 * it is not timed: no write will ever be caused by it, and the next write of its shard, whenever
 * that comes, would be counted as its latency.
 *
 * <p>The harness shares the machine with what it measures, so it does as little as it can while it
 * offers: the events of a run are made, folded and encoded before it starts (the timed loop only
 * sends them), and a watched value is checked against its shard's events in the order they were
 * sent, stopping at the first it does not hold: the pipeline folds a shard's events in that order,
 * so the events a value holds are a prefix of them.
 */
final class LatencyRun {
  private LatencyRun() {}

  /**
   * Latencies in milliseconds.
   *
   * @param noops events that changed nothing when they were sent, or that etcd held at the end
   *     without a watched write showing them
   * @param lost events etcd did not come to hold within 30 s after the last was sent
   * @param seconds from the first event sent until the last was seen or the wait for it ended
   * @param view produce to a {@link io.demandfold.view.DemandView} listener of the same events
   *     ({@link ViewLag}), {@code null} when not timed
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
      String slowestSeconds,
      double seconds,
      ViewLag.Result view) {}

  /** An event whose arrival in etcd is timed, from {@code nanos}, set when it is sent. */
  private static final class Sent {
    final ShardRecord record;
    long nanos;

    Sent(ShardRecord record) {
      this.record = record;
    }
  }

  /** The record etcd holds at {@code key}, or {@code null}. */
  static ShardRecord current(Client etcd, String key) {
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

  /**
   * Offers {@code rate} events a second for {@code duration}.
   *
   * @param folded the fold of every event sent before, by shard key ({@code <hex>/<shard>}); the
   *     events of this run are joined into it
   * @param timeView whether to time the events to a {@link io.demandfold.view.DemandView}'s
   *     listener too ({@link ViewLag})
   */
  @SuppressWarnings("try") // the watch only needs to be open while events are offered
  static Result run(
      int rate,
      java.time.Duration duration,
      FleetModel model,
      long clockFrom,
      Map<String, ShardRecord> folded,
      String bootstrap,
      String topic,
      Client etcd,
      EtcdLayout layout,
      boolean timeView)
      throws InterruptedException {
    int total = (int) (rate * duration.toSeconds());
    ViewLag view =
        timeView ? new ViewLag(etcd, layout, total, new TableExpectations(folded)) : null;
    // made before the run, compactly (one array of values, a key index per event), so that the
    // harness neither spends the run's CPU on them nor gives the collector much to copy
    Map<String, Integer> keyIndex = new HashMap<>();
    List<byte[]> keyBytes = new ArrayList<>();
    int[] keyOf = new int[total];
    Arena values = new Arena(total);
    Sent[] sents = new Sent[total];
    Map<String, ConcurrentLinkedDeque<Sent>> pending = new ConcurrentHashMap<>();
    List<String> keyNames = new ArrayList<>();
    long noops = 0;
    for (int i = 0; i < total; i++) {
      DemandEvent e = model.next(EventLog.START_MS + clockFrom + i);
      String key = e.key();
      Integer k = keyIndex.get(key);
      if (k == null) {
        k = keyBytes.size();
        keyIndex.put(key, k);
        keyBytes.add(key.getBytes(StandardCharsets.UTF_8));
        keyNames.add(key);
      }
      keyOf[i] = k;
      values.add(EventLog.value(e, clockFrom + i));
      ShardRecord before = folded.get(key);
      ShardRecord after = Join.join(before, e.record());
      if (after != before) {
        folded.put(key, after);
        if (view != null) {
          view.expect(i, key, after);
        }
        sents[i] = new Sent(e.record());
        pending.computeIfAbsent(key, x -> new ConcurrentLinkedDeque<>());
      } else {
        noops++;
      }
    }
    long[] latencies = new long[total + 16];
    long[] sentAt = new long[latencies.length];
    int[] count = {0};
    String from = layout.shardRecordsPrefix();
    Watch.Listener listener =
        ShardPuts.listener(
            from,
            key -> {
              ConcurrentLinkedDeque<Sent> q = pending.get(key);
              return q != null && !q.isEmpty();
            },
            (key, value, now) -> {
              ConcurrentLinkedDeque<Sent> q = pending.get(key);
              // the events a value holds are the first ones sent: stop at one it lacks
              Sent sent;
              while ((sent = q.peekFirst()) != null && Join.join(value, sent.record) == value) {
                q.pollFirst();
                synchronized (latencies) {
                  if (count[0] < latencies.length) {
                    sentAt[count[0]] = sent.nanos;
                    latencies[count[0]++] = now - sent.nanos;
                  }
                }
              }
            });
    long offered = 0;
    long t0;
    if (view != null) {
      view.start();
    }
    try (Watch.Watcher watcher =
            etcd.getWatchClient()
                .watch(
                    ByteSequence.from(from, StandardCharsets.UTF_8),
                    WatchOption.builder().isPrefix(true).build(),
                    listener);
        KafkaProducer<byte[], byte[]> producer = EventLog.producer(bootstrap, 5)) {
      long interval = 1_000_000_000L / rate;
      t0 = System.nanoTime();
      for (int i = 0; i < total; i++) {
        long due = t0 + i * interval;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        }
        Sent sent = sents[i];
        if (sent != null) {
          sent.nanos = System.nanoTime();
          pending.get(keyNames.get(keyOf[i])).add(sent);
          sents[i] = null;
          if (view != null) {
            view.sent(i, sent.nanos);
          }
        }
        producer.send(new ProducerRecord<>(topic, keyBytes.get(keyOf[i]), values.get(i)));
        offered++;
      }
      producer.flush();
      long drain = System.nanoTime() + 30_000_000_000L;
      while ((pending.values().stream().anyMatch(q -> !q.isEmpty())
              || (view != null && !view.drained()))
          && System.nanoTime() < drain) {
        Thread.sleep(50);
      }
    } finally {
      if (view != null) {
        view.close();
      }
    }
    ViewLag.Result viewLag = view == null ? null : view.result();
    double seconds = (System.nanoTime() - t0) / 1e9;
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
          offered,
          0,
          noops,
          lost,
          Double.NaN,
          Double.NaN,
          Double.NaN,
          Double.NaN,
          Double.NaN,
          "",
          seconds,
          viewLag);
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
        slowest,
        seconds,
        viewLag);
  }

  /**
   * Byte arrays appended one after another into chunks of {@link #CHUNK} bytes, read back by their
   * index: no copying as it grows (one array that doubled past 1 GiB overflowed its length and then
   * grew by one value at a time), and a few large arrays for the collector.
   */
  private static final class Arena {
    private static final int CHUNK = 16 << 20;
    private final List<byte[]> chunks = new ArrayList<>();
    private final long[] starts;
    private final int[] lengths;
    private int n;
    private int used = CHUNK;

    Arena(int capacity) {
      starts = new long[capacity];
      lengths = new int[capacity];
    }

    void add(byte[] b) {
      if (used + b.length > CHUNK) {
        chunks.add(new byte[Math.max(CHUNK, b.length)]);
        used = 0;
      }
      System.arraycopy(b, 0, chunks.get(chunks.size() - 1), used, b.length);
      starts[n] = ((long) (chunks.size() - 1) << 32) | used;
      lengths[n++] = b.length;
      used += b.length;
    }

    byte[] get(int i) {
      int from = (int) starts[i];
      return Arrays.copyOfRange(chunks.get((int) (starts[i] >>> 32)), from, from + lengths[i]);
    }
  }

  /** The {@code q} quantile of sorted nanoseconds, in milliseconds. */
  static double quantile(long[] sorted, double q) {
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
