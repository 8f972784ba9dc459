package io.demandfold.bench;

import io.demandfold.core.Join;
import io.demandfold.core.ShardRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Function;

/**
 * (h)'s produce-to-etcd times of the events of a sample of shards: an event is timed from just
 * before it is produced until an etcd watch of its shard's key delivers a value that holds it
 * (joining the event into the value changes nothing), as (d) does ({@link LatencyRun}) but for the
 * sampled shards only, so that the watch and the checks stay small beside a million shards. An
 * event that changes nothing in the fold of its shard's events sent before it is counted, not
 * timed: no write need ever show it. A shard's events are checked in the order they were sent,
 * stopping at the first a value lacks: the pipeline folds them in that order.
 *
 * <p>{@link #sent} is called by one thread (the producer's); {@link #heard} by the watch's.
 */
final class LiveLatency {
  private final Map<String, ShardRecord> folded;
  private final Map<String, ConcurrentLinkedDeque<Sent>> pending = new ConcurrentHashMap<>();
  private long[] times = new long[1024];
  private int n;
  private long noops;
  private long timed;

  /** An event on its way: what it carries and when it was sent. */
  private record Sent(ShardRecord record, long nanos) {}

  /**
   * Produce-to-etcd times of the sampled events, in milliseconds. When some were not seen in etcd
   * by the end of the wait ({@code censored}), each counts at the time it had waited by then, a
   * lower bound: the percentiles above the censored share are lower bounds too.
   *
   * @param timed events that changed their shard's fold when sent
   * @param noops events that changed nothing when sent
   * @param heard timed events a watched value showed
   * @param held timed events no watched value showed that etcd held at the end
   * @param censored timed events etcd did not hold when the wait ended
   */
  record Result(
      long timed,
      long noops,
      long heard,
      long held,
      long censored,
      double p50,
      double p99,
      double max) {}

  /**
   * @param folded the fold of every event sent before, by shard key ({@code <hex>/<shard>}), of the
   *     sampled shards that have one
   */
  LiveLatency(Map<String, ShardRecord> folded) {
    this.folded = new HashMap<>(folded);
  }

  /**
   * The event of shard {@code key} carrying {@code record} is sent at {@code nanos}; {@code timed}:
   * to be timed (not in a warm-up), else only folded into what later events are checked against.
   */
  void sent(String key, ShardRecord record, long nanos, boolean timed) {
    ShardRecord before = folded.get(key);
    ShardRecord after = Join.join(before, record);
    if (!timed) {
      folded.put(key, after);
      return;
    }
    if (after == before) {
      noops++;
      return;
    }
    folded.put(key, after);
    this.timed++;
    pending.computeIfAbsent(key, k -> new ConcurrentLinkedDeque<>()).add(new Sent(record, nanos));
  }

  /** A watch delivered {@code value} of shard {@code key} at {@code nanos}. */
  void heard(String key, ShardRecord value, long nanos) {
    ConcurrentLinkedDeque<Sent> q = pending.get(key);
    if (q == null) {
      return;
    }
    Sent s;
    while ((s = q.peekFirst()) != null && Join.join(value, s.record()) == value) {
      q.pollFirst();
      add(nanos - s.nanos());
    }
  }

  private synchronized void add(long nanos) {
    if (n == times.length) {
      times = Arrays.copyOf(times, n * 2);
    }
    times[n++] = nanos;
  }

  /** Whether every timed event was seen. */
  boolean drained() {
    for (ConcurrentLinkedDeque<Sent> q : pending.values()) {
      if (!q.isEmpty()) {
        return false;
      }
    }
    return true;
  }

  /** The shards with events not seen yet. */
  List<String> waiting() {
    List<String> out = new ArrayList<>();
    pending.forEach(
        (k, q) -> {
          if (!q.isEmpty()) {
            out.add(k);
          }
        });
    return out;
  }

  /**
   * The times, once the wait for the last events ended at {@code endNanos}: an event not seen that
   * the value etcd holds now ({@code current}, {@code null} when absent) contains is counted as
   * held, not timed; any other counts at {@code endNanos} less its send time (censored).
   */
  synchronized Result result(Function<String, ShardRecord> current, long endNanos) {
    int heard = n;
    long held = 0;
    long censored = 0;
    for (Map.Entry<String, ConcurrentLinkedDeque<Sent>> e : pending.entrySet()) {
      if (e.getValue().isEmpty()) {
        continue;
      }
      ShardRecord now = current.apply(e.getKey());
      for (Sent s : e.getValue()) {
        if (now != null && Join.join(now, s.record()) == now) {
          held++;
        } else {
          censored++;
          add(endNanos - s.nanos());
        }
      }
    }
    long[] l = Arrays.copyOf(times, n);
    n = heard; // the censored times are the result's, not the run's
    Arrays.sort(l);
    if (l.length == 0) {
      return new Result(timed, noops, heard, held, censored, Double.NaN, Double.NaN, Double.NaN);
    }
    return new Result(
        timed,
        noops,
        heard,
        held,
        censored,
        LatencyRun.quantile(l, 0.5),
        LatencyRun.quantile(l, 0.99),
        l[l.length - 1] / 1e6);
  }
}
