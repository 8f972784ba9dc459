package io.demandfold.core.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.SealedTimes;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.Source;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** The hand-written Avro encoding is byte for byte Avro's own, in both directions. */
class AvroBinaryTest {

  @Property(tries = 500)
  void shouldWriteExactlyWhatAvroWritesAndReadItBack(@ForAll long seed) {
    Random rnd = new Random(seed);
    ShardRecord r = randomRecord(rnd);
    String target = rnd.nextBoolean() ? "orders" : "t\u00e9-" + rnd.nextInt(1000);
    DemandEvent e = new DemandEvent(target, r);

    assertThat(AvroCodec.encodeEvent(e)).isEqualTo(GenericAvro.encodeEvent(e));
    assertThat(AvroCodec.encodeRecord(r)).isEqualTo(GenericAvro.encodeRecord(r));
    assertThat(AvroCodec.decodeEvent(GenericAvro.encodeEvent(e))).isEqualTo(e);
    assertThat(AvroCodec.decodeRecord(GenericAvro.encodeRecord(r))).isEqualTo(r);
  }

  static ShardRecord randomRecord(Random rnd) {
    long big = rnd.nextBoolean() ? rnd.nextInt(200) : rnd.nextLong() & Long.MAX_VALUE;
    ShardRecord.Builder b =
        ShardRecord.builder("shard-" + rnd.nextInt(50))
            .sealedThrough(big)
            .sealedBytesThrough(rnd.nextLong() & Long.MAX_VALUE)
            .writerEpoch(rnd.nextInt(5))
            .flushedAtMs(rnd.nextLong())
            .source(Source.values()[rnd.nextInt(3)]);
    if (rnd.nextBoolean()) {
      b.mergedThrough((long) rnd.nextInt(100));
      if (rnd.nextBoolean()) {
        b.mergedEpoch((long) rnd.nextInt(5));
      }
    }
    SealedTimes.Builder t = new SealedTimes.Builder();
    int n = rnd.nextInt(4) == 0 ? rnd.nextInt(300) : rnd.nextInt(5);
    for (int i = 0; i < n; i++) {
      t.put(i * 3L + rnd.nextInt(3), rnd.nextLong());
    }
    return b.sealedTimes(t.build()).build();
  }
}
