package io.demandfold.it;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.SealedTimes;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.Source;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Random event streams shaped like a fleet: per shard, writers flush increasing generations with
 * the flush times of their lowest unmerged generations, executors merge, scans observe, epochs
 * change now and then; the stream is then shuffled within a window (events of different shards
 * interleave, a few arrive late), and a few are duplicated.
 */
final class RandomStreams {
  private RandomStreams() {}

  /**
   * @param namespace prefix of the target names, so that several streams can share a topic
   */
  static List<DemandEvent> stream(
      Random rnd, String namespace, int targets, int shards, int events) {
    List<String> targetNames = new ArrayList<>();
    for (int t = 0; t < targets; t++) {
      targetNames.add(namespace + "-table-" + t);
    }
    String[] shardTarget = new String[shards];
    long[] sealed = new long[shards];
    long[] merged = new long[shards];
    long[] epoch = new long[shards];
    for (int s = 0; s < shards; s++) {
      shardTarget[s] = targetNames.get(s % targets);
      epoch[s] = 1;
    }
    List<DemandEvent> out = new ArrayList<>(events);
    long clock = 1_764_400_000_000L;
    while (out.size() < events) {
      int s = rnd.nextInt(shards);
      String shard = "shard-" + s;
      clock += rnd.nextInt(50);
      int kind = rnd.nextInt(20);
      ShardRecord r;
      if (kind < 13) {
        sealed[s]++;
        if (rnd.nextInt(100) == 0) {
          epoch[s]++;
        }
        SealedTimes.Builder times = new SealedTimes.Builder();
        for (long g = Math.max(merged[s] + 1, sealed[s] - 5); g < sealed[s]; g++) {
          times.put(g, clock - (sealed[s] - g) * 40);
        }
        r =
            ShardRecord.builder(shard)
                .sealedThrough(sealed[s])
                .sealedBytesThrough(sealed[s] * 4096)
                .writerEpoch(epoch[s])
                .flushedAtMs(clock)
                .source(Source.WRITER)
                .sealedTimes(times.build())
                .build();
      } else if (kind < 18) {
        merged[s] = Math.min(sealed[s], merged[s] + 1 + rnd.nextInt(3));
        ShardRecord.Builder b =
            ShardRecord.builder(shard)
                .sealedThrough(sealed[s])
                .mergedThrough(merged[s])
                .writerEpoch(epoch[s])
                .flushedAtMs(clock)
                .source(Source.EXECUTOR);
        if (epoch[s] > 1 && rnd.nextBoolean()) {
          b.mergedEpoch(epoch[s] - 1);
        }
        r = b.build();
      } else {
        r =
            ShardRecord.builder(shard)
                .sealedThrough(Math.max(0, sealed[s] - rnd.nextInt(2)))
                .mergedThrough(Math.max(0, merged[s] - rnd.nextInt(2)))
                .sealedBytesThrough(sealed[s] * 4096)
                .writerEpoch(epoch[s])
                .flushedAtMs(clock - 100)
                .source(Source.SCAN)
                .build();
      }
      out.add(new DemandEvent(shardTarget[s], r));
      if (rnd.nextInt(30) == 0) {
        out.add(out.get(rnd.nextInt(out.size())));
      }
    }
    for (int i = 0; i < out.size(); i++) {
      int j = Math.min(out.size() - 1, i + rnd.nextInt(8));
      Collections.swap(out, i, j);
    }
    return out;
  }
}
