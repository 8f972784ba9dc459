package io.demandfold.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * {@link Join} against spec section 4 written as plainly as possible (maps, no shortcuts): a test
 * oracle, including stored records another writer put in etcd (not normalised, more than 64 flush
 * times).
 */
class JoinOracleTest {

  @Property(tries = 2000)
  void shouldJoinExactlyAsTheSpecSays(@ForAll long seed) {
    Random rnd = new Random(seed);
    ShardRecord stored = random(rnd, rnd.nextInt(5) == 0 ? 120 : 70);
    if (rnd.nextBoolean()) {
      stored = Join.join(null, stored);
    }
    ShardRecord event = rnd.nextInt(3) == 0 ? covered(stored, rnd) : random(rnd, 10);
    ShardRecord joined = Join.join(stored, event);
    assertThat(joined).isEqualTo(oracle(stored, event));
    if (joined.equals(stored)) {
      assertThat(joined).isSameAs(stored);
    }
  }

  /** Spec section 4, step by step. */
  static ShardRecord oracle(ShardRecord a, ShardRecord b) {
    ShardRecord w = winner(a, b);
    Mark merged = max(a.mergedMark(), b.mergedMark());
    TreeMap<Long, Long> times = new TreeMap<>();
    for (ShardRecord r : new ShardRecord[] {a, b}) {
      r.sealedTimes().asMap().forEach((g, t) -> times.merge(g, t, Math::min));
      if (r.source() != Source.EXECUTOR && r.sealedThrough() > 0) {
        times.merge(r.sealedThrough(), r.flushedAtMs(), Math::min);
      }
    }
    while (times.size() > Limits.SEALED_TIMES_CAP) {
      times.remove(times.firstKey());
    }
    ShardRecord.Builder out =
        ShardRecord.builder(w.shard())
            .sealedThrough(w.sealedThrough())
            .writerEpoch(w.writerEpoch())
            .flushedAtMs(w.flushedAtMs())
            .source(w.source())
            .sealedBytesThrough(Math.max(a.sealedBytesThrough(), b.sealedBytesThrough()))
            .sealedTimes(SealedTimes.of(times));
    if (merged != null) {
      out.mergedThrough(merged.value());
      if (merged.epoch() != w.writerEpoch()) {
        out.mergedEpoch(merged.epoch());
      }
    }
    return out.build();
  }

  private static ShardRecord winner(ShardRecord a, ShardRecord b) {
    int c = a.sealedMark().compareTo(b.sealedMark());
    if (c == 0) {
      c = Long.compare(b.flushedAtMs(), a.flushedAtMs());
    }
    if (c == 0) {
      c = Integer.compare(rank(b.source()), rank(a.source()));
    }
    return c >= 0 ? a : b;
  }

  private static int rank(Source s) {
    return s == Source.WRITER ? 0 : s == Source.SCAN ? 1 : 2;
  }

  private static Mark max(Mark a, Mark b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    return a.compareTo(b) >= 0 ? a : b;
  }

  private static ShardRecord random(Random rnd, int maxTimes) {
    ShardRecord.Builder b =
        ShardRecord.builder("s")
            .sealedThrough(rnd.nextInt(150))
            .writerEpoch(1 + rnd.nextInt(3))
            .flushedAtMs(rnd.nextInt(5000))
            .sealedBytesThrough(rnd.nextInt(1000))
            .source(Source.values()[rnd.nextInt(3)]);
    if (rnd.nextBoolean()) {
      b.mergedThrough((long) rnd.nextInt(150));
      if (rnd.nextBoolean()) {
        b.mergedEpoch((long) (1 + rnd.nextInt(3)));
      }
    }
    Map<Long, Long> times = new TreeMap<>();
    int n = rnd.nextInt(maxTimes + 1);
    for (int i = 0; i < n; i++) {
      times.put((long) rnd.nextInt(200), (long) rnd.nextInt(5000));
    }
    return b.sealedTimes(SealedTimes.of(times)).build();
  }

  /** An event whose flush times the stored record mostly already holds. */
  private static ShardRecord covered(ShardRecord stored, Random rnd) {
    TreeMap<Long, Long> times = new TreeMap<>();
    stored
        .sealedTimes()
        .asMap()
        .forEach(
            (g, t) -> {
              if (rnd.nextInt(3) == 0) {
                times.put(g, t + rnd.nextInt(2));
              }
            });
    return stored.toBuilder()
        .sealedTimes(SealedTimes.of(times))
        .flushedAtMs(stored.flushedAtMs() + rnd.nextInt(2))
        .build();
  }
}
