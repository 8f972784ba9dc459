package io.demandfold.sim;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.SealedTimes;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.Source;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * The state of a fleet of shards and the events it produces: writers flush the next generation
 * (carrying the flush times of their lowest unmerged generations), executors merge all but the
 * newest few pending generations and report after releasing, a scan reports what storage shows, and
 * a writer now and then takes over a shard under a new epoch (generation numbering continues).
 * Deterministic for a seed. Not thread-safe.
 */
public final class FleetModel {
  /** Most unmerged flush times a writer reports with a flush. */
  static final int REPORTED_TIMES = 8;

  /**
   * Most generations a merge leaves pending: it takes the older ones, 0 to 7 of the newest stay.
   */
  static final int MAX_LEFT_PENDING = 7;

  private static final long BYTES_PER_GENERATION = 4 << 20;

  /** Generations whose flush times a shard remembers. */
  private static final int REMEMBERED = 4096;

  private final Random rnd;
  private final String[] targets;
  private final Shard[] shards;

  private static final class Shard {
    final String target;
    final String id;
    long sealed;
    long merged;
    long epoch = 1;
    long bytes;

    /**
     * The flush times of the last {@link #REMEMBERED} generations, in a ring that starts small and
     * doubles while the shard has fewer generations than it holds (a million shards of a few
     * generations each take a few MB, not 32 GB): every generation the full ring would hold, this
     * one holds too, with the same time.
     */
    long[] flushTimes = new long[8];

    Shard(String target, String id) {
      this.target = target;
      this.id = id;
    }

    /**
     * A builder of this shard's record as {@code source} reports it at {@code nowMs}, under the
     * shard's epoch, sealed through {@code sealedThrough}.
     */
    ShardRecord.Builder record(Source source, long sealedThrough, long nowMs) {
      return ShardRecord.builder(id)
          .sealedThrough(sealedThrough)
          .writerEpoch(epoch)
          .flushedAtMs(nowMs)
          .source(source);
    }

    DemandEvent event(ShardRecord.Builder record) {
      return new DemandEvent(target, record.build());
    }

    long timeOf(long g) {
      return flushTimes[(int) (g % flushTimes.length)];
    }

    void remember(long g, long nowMs) {
      if (g >= flushTimes.length && flushTimes.length < REMEMBERED) {
        long[] grown = new long[flushTimes.length * 2];
        for (long h = Math.max(1, g - flushTimes.length); h < g; h++) {
          grown[(int) (h % grown.length)] = timeOf(h);
        }
        flushTimes = grown;
      }
      flushTimes[(int) (g % flushTimes.length)] = nowMs;
    }
  }

  /**
   * @param targets number of tables
   * @param shardsPerTarget shards of each table
   */
  public FleetModel(long seed, int targets, int shardsPerTarget) {
    if (targets < 1 || shardsPerTarget < 1) {
      throw new IllegalArgumentException(
          "a fleet needs at least one target and one shard per target, got "
              + targets
              + " x "
              + shardsPerTarget);
    }
    this.rnd = new Random(seed);
    this.targets = new String[targets];
    this.shards = new Shard[targets * shardsPerTarget];
    for (int t = 0; t < targets; t++) {
      this.targets[t] = String.format("table-%03d", t);
      for (int s = 0; s < shardsPerTarget; s++) {
        shards[t * shardsPerTarget + s] =
            new Shard(this.targets[t], new UUID(rnd.nextLong(), rnd.nextLong()).toString());
      }
    }
  }

  public int shardCount() {
    return shards.length;
  }

  public List<String> targets() {
    return List.of(targets);
  }

  /** The writer of shard {@code i} flushes its next generation at {@code nowMs}. */
  public DemandEvent flush(int i, long nowMs) {
    Shard s = shards[i];
    s.sealed++;
    s.bytes += BYTES_PER_GENERATION / 2 + rnd.nextInt((int) BYTES_PER_GENERATION);
    s.remember(s.sealed, nowMs);
    SealedTimes.Builder times = new SealedTimes.Builder();
    long from = Math.max(s.merged + 1, s.sealed - REMEMBERED + 1);
    for (long g = from; g < s.sealed && g < from + REPORTED_TIMES; g++) {
      times.put(g, s.timeOf(g));
    }
    return s.event(
        s.record(Source.WRITER, s.sealed, nowMs)
            .sealedBytesThrough(s.bytes)
            .sealedTimes(times.build()));
  }

  /**
   * An executor merges the pending generations of shard {@code i} but up to the {@link
   * #MAX_LEFT_PENDING} newest (at least one generation) and reports; {@code null} when nothing is
   * pending. Executors keep up with the writers, as a scheduler keeps a healthy fleet: a shard has
   * a few pending generations, not a backlog that grows with every flush.
   */
  public DemandEvent merge(int i, long nowMs) {
    Shard s = shards[i];
    if (s.merged >= s.sealed) {
      return null;
    }
    int most = (int) Math.min(MAX_LEFT_PENDING, s.sealed - s.merged - 1);
    s.merged = s.sealed - rnd.nextInt(most + 1);
    return s.event(s.record(Source.EXECUTOR, s.merged, nowMs).mergedThrough(s.merged));
  }

  /** The scan's view of shard {@code i}. */
  public DemandEvent scan(int i, long nowMs) {
    Shard s = shards[i];
    return s.event(
        s.record(Source.SCAN, s.sealed, nowMs).sealedBytesThrough(s.bytes).mergedThrough(s.merged));
  }

  /** A new writer takes over shard {@code i}: later events carry the next epoch. */
  public void changeEpoch(int i) {
    shards[i].epoch++;
  }

  /** The scan's view of every shard of {@code target}. */
  public List<DemandEvent> scanTarget(String target, long nowMs) {
    List<DemandEvent> out = new ArrayList<>();
    for (int i = 0; i < shards.length; i++) {
      if (shards[i].target.equals(target)) {
        out.add(scan(i, nowMs));
      }
    }
    return out;
  }

  /**
   * The next event of a realistic mix over random shards: about 70% writer flushes, 25% executor
   * merges, 5% scans; one flush in a thousand comes from a writer that took over under a new epoch.
   */
  public DemandEvent next(long nowMs) {
    int i = rnd.nextInt(shards.length);
    int kind = rnd.nextInt(100);
    if (kind < 25) {
      DemandEvent merged = merge(i, nowMs);
      if (merged != null) {
        return merged;
      }
    } else if (kind < 30) {
      return scan(i, nowMs);
    }
    if (rnd.nextInt(1000) == 0) {
      changeEpoch(i);
    }
    return flush(i, nowMs);
  }

  /** A random shard index. */
  public int randomShard() {
    return rnd.nextInt(shards.length);
  }
}
