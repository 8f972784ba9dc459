package io.demandfold.core.codec;

import static io.demandfold.core.Events.executor;
import static io.demandfold.core.Events.fold;
import static io.demandfold.core.Events.writer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.Source;
import java.nio.ByteBuffer;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageEncoder;
import org.junit.jupiter.api.Test;

class AvroCodecTest {

  @Test
  void shouldWriteSingleObjectEncodingWithTheCurrentFingerprint() {
    byte[] bytes = AvroCodec.encodeEvent(new DemandEvent("t", writer("s", 1, 1, 1)));
    assertThat(bytes[0]).isEqualTo((byte) 0xC3);
    assertThat(bytes[1]).isEqualTo((byte) 0x01);
    long fp = ByteBuffer.wrap(bytes, 2, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
    assertThat(fp).isEqualTo(AvroCodec.eventSchemaFingerprint());
  }

  @Test
  void shouldRoundTripEventsAndStoredRecords() {
    ShardRecord r =
        fold(writer("s", 70, 5, 7000), executor("s", 70, 50, 3, 8000), writer("s", 69, 5, 6900))
            .toBuilder()
            .sealedBytesThrough(123_456)
            .build();
    DemandEvent e = new DemandEvent("orders", r);
    assertThat(AvroCodec.decodeEvent(AvroCodec.encodeEvent(e))).isEqualTo(e);
    assertThat(AvroCodec.decodeRecord(AvroCodec.encodeRecord(r))).isEqualTo(r);
    assertThat(EventDecoder.decode(AvroCodec.encodeEvent(e))).isEqualTo(e);
  }

  @Test
  void shouldResolveEventsWrittenWithAnOlderSchema() throws Exception {
    Schema old = AvroCodec.historySchemas().get(0);
    assertThat(old.getField("sealed_bytes_through")).isNull();
    GenericRecord g = new GenericData.Record(old);
    g.put("v", 1);
    g.put("target", "orders");
    g.put("shard", "s1");
    g.put("sealed_through", 12L);
    g.put("merged_through", 4L);
    g.put("flushed_at_ms", 1200L);
    g.put("writer_epoch", 2L);
    g.put("source", new GenericData.EnumSymbol(old.getField("source").schema(), "writer"));
    ByteBuffer buf = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), old).encode(g);
    byte[] bytes = new byte[buf.remaining()];
    buf.get(bytes);
    assertThat(SchemaNormalization.parsingFingerprint64(old))
        .isNotEqualTo(AvroCodec.eventSchemaFingerprint());

    DemandEvent e = EventDecoder.decode(bytes);
    assertThat(e.target()).isEqualTo("orders");
    assertThat(e.record().sealedThrough()).isEqualTo(12);
    assertThat(e.record().mergedThrough()).hasValue(4);
    assertThat(e.record().sealedBytesThrough()).isZero();
    assertThat(e.record().mergedEpoch()).isEmpty();
    assertThat(e.record().sealedTimes().isEmpty()).isTrue();
    assertThat(e.record().source()).isEqualTo(Source.WRITER);
  }

  @Test
  void shouldRejectAnUnknownFingerprintWithItsValue() {
    byte[] bytes = AvroCodec.encodeEvent(new DemandEvent("t", writer("s", 1, 1, 1)));
    for (int i = 2; i < 10; i++) {
      bytes[i] = (byte) 0xAB;
    }
    assertThatThrownBy(() -> EventDecoder.decode(bytes))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage(
            "unknown Avro schema fingerprint 0xabababababababab (not a known writer schema)")
        .extracting(x -> ((InvalidEventException) x).reason())
        .isEqualTo(InvalidEventException.Reason.UNKNOWN_SCHEMA);
  }
}
