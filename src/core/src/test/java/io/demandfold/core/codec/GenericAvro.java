package io.demandfold.core.codec;

import io.demandfold.avro.SealedTime;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.SealedTimes;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.Source;
import io.demandfold.core.Versions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.message.BinaryMessageEncoder;

/** Events and records written through Avro's own generated writer: the reference for tests. */
final class GenericAvro {
  private GenericAvro() {}

  /** {@link AvroCodec#encodeEvent} through Avro's own writer. */
  static byte[] encodeEvent(DemandEvent e) {
    ShardRecord r = e.record();
    io.demandfold.avro.DemandEvent a =
        io.demandfold.avro.DemandEvent.newBuilder()
            .setV(Versions.CURRENT)
            .setTarget(e.target())
            .setShard(r.shard())
            .setSealedThrough(r.sealedThrough())
            .setSealedBytesThrough(r.sealedBytesThrough())
            .setMergedThrough(r.hasMergedThrough() ? r.mergedThroughOrAbsent() : null)
            .setMergedEpoch(optional(r.mergedEpochOrAbsent()))
            .setFlushedAtMs(r.flushedAtMs())
            .setWriterEpoch(r.writerEpoch())
            .setSource(toAvro(r.source()))
            .setSealedTimes(toAvro(r.sealedTimes()))
            .build();
    return encode(io.demandfold.avro.DemandEvent.getEncoder(), a);
  }

  /** {@link AvroCodec#encodeRecord} through Avro's own writer. */
  static byte[] encodeRecord(ShardRecord r) {
    io.demandfold.avro.ShardRecord a =
        io.demandfold.avro.ShardRecord.newBuilder()
            .setV(Versions.CURRENT)
            .setShard(r.shard())
            .setSealedThrough(r.sealedThrough())
            .setSealedBytesThrough(r.sealedBytesThrough())
            .setMergedThrough(r.hasMergedThrough() ? r.mergedThroughOrAbsent() : null)
            .setMergedEpoch(optional(r.mergedEpochOrAbsent()))
            .setFlushedAtMs(r.flushedAtMs())
            .setWriterEpoch(r.writerEpoch())
            .setSource(toAvro(r.source()))
            .setSealedTimes(toAvro(r.sealedTimes()))
            .build();
    return encode(io.demandfold.avro.ShardRecord.getEncoder(), a);
  }

  private static <T> byte[] encode(BinaryMessageEncoder<T> encoder, T datum) {
    try {
      ByteBuffer buf = encoder.encode(datum);
      byte[] out = new byte[buf.remaining()];
      buf.get(out);
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Long optional(long v) {
    return v == ShardRecord.ABSENT ? null : v;
  }

  private static io.demandfold.avro.Source toAvro(Source s) {
    switch (s) {
      case WRITER:
        return io.demandfold.avro.Source.writer;
      case EXECUTOR:
        return io.demandfold.avro.Source.executor;
      default:
        return io.demandfold.avro.Source.scan;
    }
  }

  private static List<SealedTime> toAvro(SealedTimes t) {
    List<SealedTime> out = new ArrayList<>(t.size());
    for (int i = 0; i < t.size(); i++) {
      out.add(new SealedTime(t.generation(i), t.time(i)));
    }
    return out;
  }
}
