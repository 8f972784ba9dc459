package io.demandfold.stream;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.InvalidEventException.Reason;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableView;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.EventDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/** The serdes of the topology. */
final class Serdes {
  private Serdes() {}

  /** Event keys: strict UTF-8; a null key is an {@link InvalidEventException} (DLQ). */
  static Serde<String> eventKey() {
    Deserializer<String> d =
        (topic, data) -> {
          if (data == null) {
            throw new InvalidEventException(Reason.NULL_KEY, "record has no key");
          }
          try {
            return StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(data))
                .toString();
          } catch (CharacterCodingException e) {
            throw new InvalidEventException(Reason.INVALID_KEY, "key is not valid UTF-8");
          }
        };
    Serializer<String> s = (topic, v) -> v == null ? null : v.getBytes(StandardCharsets.UTF_8);
    return org.apache.kafka.common.serialization.Serdes.serdeFrom(s, d);
  }

  /** Event values: Avro single-object or JSON, told apart by {@link EventDecoder}. */
  static Serde<DemandEvent> event() {
    Deserializer<DemandEvent> d = (topic, data) -> EventDecoder.decode(data);
    Serializer<DemandEvent> s = (topic, v) -> v == null ? null : AvroCodec.encodeEvent(v);
    return org.apache.kafka.common.serialization.Serdes.serdeFrom(s, d);
  }

  /** Stored shard records: Avro single-object encoding of {@code schemas/ShardRecord.avsc}. */
  static Serde<ShardRecord> shardRecord() {
    Deserializer<ShardRecord> d =
        (topic, data) -> data == null ? null : AvroCodec.decodeRecord(data);
    Serializer<ShardRecord> s = (topic, v) -> v == null ? null : AvroCodec.encodeRecord(v);
    return org.apache.kafka.common.serialization.Serdes.serdeFrom(s, d);
  }

  /** Outbox entries: the wall-clock time a key became dirty, 8 bytes. */
  static Serde<Long> dirtySince() {
    return org.apache.kafka.common.serialization.Serdes.Long();
  }

  /** Table views in the table-demand store: five fixed fields, 37 bytes. */
  static Serde<TableView> tableView() {
    Serializer<TableView> s =
        (topic, v) -> {
          if (v == null) {
            return null;
          }
          ByteBuffer b = ByteBuffer.allocate(37);
          b.put((byte) 1);
          b.putLong(v.pendingGenerations());
          b.putLong(v.pendingBytes());
          b.putLong(v.oldestPendingMs().orElse(Long.MIN_VALUE));
          b.putLong(v.oldestPendingExactMs().orElse(Long.MIN_VALUE));
          b.putInt(v.shards());
          return b.array();
        };
    Deserializer<TableView> d =
        (topic, data) -> {
          if (data == null) {
            return null;
          }
          ByteBuffer b = ByteBuffer.wrap(data);
          if (b.get() != 1) {
            throw new IllegalStateException("unknown table-demand store format " + data[0]);
          }
          return new TableView(
              b.getLong(), b.getLong(), optional(b.getLong()), optional(b.getLong()), b.getInt());
        };
    return org.apache.kafka.common.serialization.Serdes.serdeFrom(s, d);
  }

  private static OptionalLong optional(long v) {
    return v == Long.MIN_VALUE ? OptionalLong.empty() : OptionalLong.of(v);
  }
}
