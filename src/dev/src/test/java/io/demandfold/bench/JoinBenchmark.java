package io.demandfold.bench;

import io.demandfold.core.Join;
import io.demandfold.core.SealedTimes;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.Source;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Join throughput on one thread (events/s): {@code scripts/jmh JoinBenchmark}.
 *
 * <p>{@code realisticMix} folds a stream shaped like production traffic: per shard, writers flush
 * increasing generations (carrying the flush times of their lowest unmerged generations), executors
 * merge every few flushes, a scan now and then, a writer epoch change; shards interleaved. {@code
 * duplicates} re-joins events already folded: the no-op path that replays and at-least-once
 * delivery take.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class JoinBenchmark {
  static final int SHARDS = 64;
  static final int PER_SHARD = 128;
  static final int EVENTS = SHARDS * PER_SHARD;

  private ShardRecord[] events;
  private int[] shardOf;
  private ShardRecord[] folded;

  @Setup
  public void setUp() {
    Random rnd = new Random(42);
    events = new ShardRecord[EVENTS];
    shardOf = new int[EVENTS];
    int i = 0;
    long[] merged = new long[SHARDS];
    long[] epoch = new long[SHARDS];
    for (int g = 1; g <= PER_SHARD; g++) {
      for (int s = 0; s < SHARDS; s++) {
        String shard = "shard-" + s;
        epoch[s] = epoch[s] == 0 ? 1 : (rnd.nextInt(200) == 0 ? epoch[s] + 1 : epoch[s]);
        ShardRecord e;
        int kind = rnd.nextInt(10);
        if (kind < 7) {
          SealedTimes.Builder times = new SealedTimes.Builder();
          for (long u = Math.max(merged[s] + 1, g - 7); u < g; u++) {
            times.put(u, u * 1000);
          }
          e =
              ShardRecord.builder(shard)
                  .sealedThrough(g)
                  .sealedBytesThrough(g * 4096L)
                  .writerEpoch(epoch[s])
                  .flushedAtMs(g * 1000L)
                  .source(Source.WRITER)
                  .sealedTimes(times.build())
                  .build();
        } else if (kind < 9) {
          merged[s] = Math.max(merged[s], g - 1 - rnd.nextInt(3));
          e =
              ShardRecord.builder(shard)
                  .sealedThrough(g)
                  .mergedThrough(merged[s])
                  .writerEpoch(epoch[s])
                  .flushedAtMs(g * 1000L + 500)
                  .source(Source.EXECUTOR)
                  .build();
        } else {
          e =
              ShardRecord.builder(shard)
                  .sealedThrough(g - 1)
                  .mergedThrough(Math.max(0, merged[s] - 1))
                  .writerEpoch(epoch[s])
                  .flushedAtMs(g * 1000L - 200)
                  .source(Source.SCAN)
                  .build();
        }
        events[i] = e;
        shardOf[i] = s;
        i++;
      }
    }
    folded = new ShardRecord[SHARDS];
    for (int k = 0; k < EVENTS; k++) {
      folded[shardOf[k]] = Join.join(folded[shardOf[k]], events[k]);
    }
  }

  @Benchmark
  @OperationsPerInvocation(EVENTS)
  public void realisticMix(Blackhole bh) {
    ShardRecord[] stored = new ShardRecord[SHARDS];
    for (int k = 0; k < EVENTS; k++) {
      int s = shardOf[k];
      stored[s] = Join.join(stored[s], events[k]);
    }
    bh.consume(stored);
  }

  @Benchmark
  @OperationsPerInvocation(EVENTS)
  public void duplicates(Blackhole bh) {
    ShardRecord[] stored = folded;
    int noops = 0;
    for (int k = 0; k < EVENTS; k++) {
      int s = shardOf[k];
      if (Join.join(stored[s], events[k]) == stored[s]) {
        noops++;
      }
    }
    bh.consume(noops);
  }
}
