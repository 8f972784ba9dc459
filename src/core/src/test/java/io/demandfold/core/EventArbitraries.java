package io.demandfold.core;

import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/** jqwik arbitraries of events for the property tests of the core. */
final class EventArbitraries {
  private EventArbitraries() {}

  /** An event of target t0 or t1, shard a to d, generations up to 150, any source and epoch 1-3. */
  static Arbitrary<DemandEvent> event() {
    Arbitrary<String> targets = Arbitraries.of("t0", "t1");
    Arbitrary<String> shards = Arbitraries.of("a", "b", "c", "d");
    Arbitrary<Long> generations = Arbitraries.longs().between(0, 150);
    Arbitrary<Long> epochs = Arbitraries.longs().between(1, 3);
    Arbitrary<Source> sources = Arbitraries.of(Source.class);
    Arbitrary<Long> merged = Arbitraries.longs().between(0, 150).injectNull(0.4);
    Arbitrary<Long> mergedEpoch = Arbitraries.longs().between(1, 3).injectNull(0.7);
    Arbitrary<Map<Long, Long>> times =
        Arbitraries.maps(
                Arbitraries.longs().between(0, 150), Arbitraries.longs().between(0, 200_000))
            .ofMaxSize(6);
    return Combinators.combine(
            targets,
            shards,
            generations,
            epochs,
            sources,
            merged,
            mergedEpoch,
            Combinators.combine(
                    times, Arbitraries.longs().between(0, 9), Arbitraries.longs().between(0, 1000))
                .as(Tuple::of))
        .as(
            (target, shard, gen, epoch, source, mergedThrough, mEpoch, extra) -> {
              ShardRecord.Builder b =
                  ShardRecord.builder(shard)
                      .sealedThrough(gen)
                      .writerEpoch(epoch)
                      .flushedAtMs(gen * 1000 + extra.get2())
                      .sealedBytesThrough(gen * 100 + extra.get3())
                      .source(source)
                      .sealedTimes(SealedTimes.of(extra.get1()));
              if (mergedThrough != null) {
                b.mergedThrough(mergedThrough);
                if (mEpoch != null) {
                  b.mergedEpoch(mEpoch);
                }
              }
              return new DemandEvent(target, b.build());
            });
  }
}
