package io.demandfold.core.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.SealedTimes;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.Source;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/** The hand-written Avro encoding is byte for byte Avro's own, in both directions. */
class AvroBinaryTest {

  @Property(tries = 500)
  void shouldWriteExactlyWhatAvroWritesAndReadItBack(@ForAll("events") DemandEvent e) {
    ShardRecord r = e.record();
    assertThat(AvroCodec.encodeEvent(e)).isEqualTo(GenericAvro.encodeEvent(e));
    assertThat(AvroCodec.encodeRecord(r)).isEqualTo(GenericAvro.encodeRecord(r));
    assertThat(AvroCodec.decodeEvent(GenericAvro.encodeEvent(e))).isEqualTo(e);
    assertThat(AvroCodec.decodeRecord(GenericAvro.encodeRecord(r))).isEqualTo(r);
  }

  /** Events of target orders, or of a non-ASCII target name, with {@link #records()}. */
  @Provide
  Arbitrary<DemandEvent> events() {
    Arbitrary<String> targets =
        Arbitraries.frequencyOf(
            Tuple.of(1, Arbitraries.just("orders")),
            Tuple.of(1, Arbitraries.integers().between(0, 999).map(n -> "t\u00e9-" + n)));
    return Combinators.combine(targets, records()).as(DemandEvent::new);
  }

  /**
   * Records with small or any non-negative generations and bytes, any flush time, merged or not,
   * and a few flush times or (a quarter) up to 300, which take several Avro blocks.
   */
  static Arbitrary<ShardRecord> records() {
    Arbitrary<Long> nonNegative = Arbitraries.longs().between(0, Long.MAX_VALUE);
    Arbitrary<List<Tuple.Tuple2<Integer, Long>>> times =
        Combinators.combine(Arbitraries.integers().between(0, 2), Arbitraries.longs())
            .as(Tuple::of)
            .list()
            .ofMaxSize(4);
    Arbitrary<List<Tuple.Tuple2<Integer, Long>>> manyTimes =
        Combinators.combine(Arbitraries.integers().between(0, 2), Arbitraries.longs())
            .as(Tuple::of)
            .list()
            .ofMaxSize(299);
    return Combinators.combine(
            Arbitraries.integers().between(0, 49).map(n -> "shard-" + n),
            Arbitraries.oneOf(Arbitraries.longs().between(0, 199), nonNegative),
            nonNegative,
            Arbitraries.longs().between(0, 4),
            Arbitraries.longs(),
            Arbitraries.of(Source.class),
            Combinators.combine(
                    Arbitraries.longs().between(0, 99).injectNull(0.5),
                    Arbitraries.longs().between(0, 4).injectNull(0.5))
                .as(Tuple::of),
            Arbitraries.frequencyOf(Tuple.of(3, times), Tuple.of(1, manyTimes)))
        .as(
            (shard, through, bytes, epoch, flushedAt, source, merged, flushTimes) -> {
              ShardRecord.Builder b =
                  ShardRecord.builder(shard)
                      .sealedThrough(through)
                      .sealedBytesThrough(bytes)
                      .writerEpoch(epoch)
                      .flushedAtMs(flushedAt)
                      .source(source);
              if (merged.get1() != null) {
                b.mergedThrough(merged.get1());
                if (merged.get2() != null) {
                  b.mergedEpoch(merged.get2());
                }
              }
              // generation i*3 + 0..2: increasing, as a writer flushes them
              SealedTimes.Builder t = new SealedTimes.Builder();
              for (int i = 0; i < flushTimes.size(); i++) {
                t.put(i * 3L + flushTimes.get(i).get1(), flushTimes.get(i).get2());
              }
              return b.sealedTimes(t.build()).build();
            });
  }
}
