package io.demandfold.stream;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.Keys;
import io.demandfold.core.Mark;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableShard;
import io.demandfold.core.TableView;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.EventDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/** The serdes of the topology's topics and stores. */
final class DemandSerdes {
  private DemandSerdes() {}

  /** Event keys: strict UTF-8; a null key is an {@link InvalidEventException} (DLQ). */
  static Serde<String> eventKey() {
    Deserializer<String> d = (topic, data) -> Keys.decode(data);
    Serializer<String> s = (topic, v) -> v == null ? null : v.getBytes(StandardCharsets.UTF_8);
    return Serdes.serdeFrom(s, d);
  }

  /** Event values: Avro single-object or JSON, told apart by {@link EventDecoder}. */
  static Serde<DemandEvent> event() {
    Deserializer<DemandEvent> d = (topic, data) -> EventDecoder.decode(data);
    Serializer<DemandEvent> s = (topic, v) -> v == null ? null : AvroCodec.encodeEvent(v);
    return Serdes.serdeFrom(s, d);
  }

  /** Stored shard records: Avro single-object encoding of {@code schemas/ShardRecord.avsc}. */
  static Serde<ShardRecord> shardRecord() {
    Deserializer<ShardRecord> d =
        (topic, data) -> data == null ? null : AvroCodec.decodeRecord(data);
    Serializer<ShardRecord> s = (topic, v) -> v == null ? null : AvroCodec.encodeRecord(v);
    return Serdes.serdeFrom(s, d);
  }

  /** Outbox entries: the wall-clock time a key became dirty, 8 bytes. */
  static Serde<Long> dirtySince() {
    return Serdes.Long();
  }

  /**
   * Table views in the table-demand store: a format byte (2), a byte of flags (1: oldest pending
   * known, 2: oldest exact known), then pending generations, pending bytes, oldest pending, oldest
   * exact and the number of shards. Format 1 (older builds) stored an absent time as {@code
   * Long.MIN_VALUE}, which is also a legal flush time; it is still read.
   */
  static Serde<TableView> tableView() {
    Serializer<TableView> s =
        (topic, v) -> {
          if (v == null) {
            return null;
          }
          ByteBuffer b = ByteBuffer.allocate(38);
          b.put((byte) 2);
          b.put(
              (byte)
                  ((v.oldestPendingMs().isPresent() ? 1 : 0)
                      | (v.oldestPendingExactMs().isPresent() ? 2 : 0)));
          b.putLong(v.pendingGenerations());
          b.putLong(v.pendingBytes());
          b.putLong(v.oldestPendingMs().orElse(0));
          b.putLong(v.oldestPendingExactMs().orElse(0));
          b.putInt(v.shards());
          return b.array();
        };
    Deserializer<TableView> d =
        (topic, data) -> {
          if (data == null) {
            return null;
          }
          ByteBuffer b = ByteBuffer.wrap(data);
          byte format = b.get();
          if (format == 1) {
            return new TableView(
                b.getLong(),
                b.getLong(),
                legacyOptional(b.getLong()),
                legacyOptional(b.getLong()),
                b.getInt());
          }
          if (format != 2) {
            throw new IllegalStateException("unknown table-demand store format " + format);
          }
          byte flags = b.get();
          long pending = b.getLong();
          long bytes = b.getLong();
          long oldest = b.getLong();
          long exact = b.getLong();
          return new TableView(
              pending,
              bytes,
              (flags & 1) != 0 ? OptionalLong.of(oldest) : OptionalLong.empty(),
              (flags & 2) != 0 ? OptionalLong.of(exact) : OptionalLong.empty(),
              b.getInt());
        };
    return Serdes.serdeFrom(s, d);
  }

  /**
   * Shard summaries on the by-target repartition topic: a format byte (1), the shard id, then the
   * table entry as {@link #tableShard} writes it. A whole shard record in Avro (older builds) is
   * read as its summary.
   */
  static Serde<ShardSummary> shardSummary() {
    Serializer<ShardSummary> s =
        (topic, v) -> {
          if (v == null) {
            return null;
          }
          byte[] id = v.shard().getBytes(StandardCharsets.UTF_8);
          ByteBuffer b = ByteBuffer.allocate(1 + 4 + id.length + TABLE_SHARD_BYTES);
          b.put((byte) 1).putInt(id.length).put(id);
          putTableShard(b, v.entry());
          return b.array();
        };
    Deserializer<ShardSummary> d =
        (topic, data) -> {
          if (data == null) {
            return null;
          }
          if (isAvroRecord(data)) {
            ShardRecord r = AvroCodec.decodeRecord(data);
            return new ShardSummary(r.shard(), TableShard.of(r));
          }
          ByteBuffer b = ByteBuffer.wrap(data);
          byte format = b.get();
          if (format != 1) {
            throw new IllegalStateException("unknown shard summary format " + format);
          }
          byte[] id = new byte[b.getInt()];
          b.get(id);
          return new ShardSummary(new String(id, StandardCharsets.UTF_8), getTableShard(b));
        };
    return Serdes.serdeFrom(s, d);
  }

  /**
   * Table entries in the table-shards store: a format byte (1), the sealed mark, a byte telling
   * whether the merged mark follows and the mark, sealed bytes, the oldest pending generation (-1:
   * none) and its time, the kept count and lowest kept generation. A whole shard record in Avro
   * (older builds) is read as its entry.
   */
  static Serde<TableShard> tableShard() {
    Serializer<TableShard> s =
        (topic, v) -> {
          if (v == null) {
            return null;
          }
          ByteBuffer b = ByteBuffer.allocate(1 + TABLE_SHARD_BYTES);
          b.put((byte) 1);
          putTableShard(b, v);
          return b.array();
        };
    Deserializer<TableShard> d =
        (topic, data) -> {
          if (data == null) {
            return null;
          }
          if (isAvroRecord(data)) {
            return TableShard.of(AvroCodec.decodeRecord(data));
          }
          ByteBuffer b = ByteBuffer.wrap(data);
          byte format = b.get();
          if (format != 1) {
            throw new IllegalStateException("unknown table-shards store format " + format);
          }
          return getTableShard(b);
        };
    return Serdes.serdeFrom(s, d);
  }

  private static final int TABLE_SHARD_BYTES = 8 * 2 + 1 + 8 * 2 + 8 + 8 * 2 + 4 + 8;

  private static void putTableShard(ByteBuffer b, TableShard t) {
    b.putLong(t.sealed().value()).putLong(t.sealed().epoch());
    if (t.merged() == null) {
      b.put((byte) 0).putLong(0).putLong(0);
    } else {
      b.put((byte) 1).putLong(t.merged().value()).putLong(t.merged().epoch());
    }
    b.putLong(t.sealedBytes());
    b.putLong(t.oldestGeneration()).putLong(t.oldestMs());
    b.putInt(t.kept().count()).putLong(t.kept().lowest());
  }

  private static TableShard getTableShard(ByteBuffer b) {
    Mark sealed = new Mark(b.getLong(), b.getLong());
    boolean hasMerged = b.get() == 1;
    long mv = b.getLong();
    long me = b.getLong();
    return new TableShard(
        sealed,
        hasMerged ? new Mark(mv, me) : null,
        b.getLong(),
        b.getLong(),
        b.getLong(),
        new TableShard.Kept(b.getInt(), b.getLong()));
  }

  /** Raw shard-records topic values: the shard lines, already UTF-8. */
  static Serde<byte[]> bytes() {
    return Serdes.ByteArray();
  }

  /**
   * Whether {@code data} is a whole shard record in Avro single-object encoding (marker {@code C3
   * 01}), as builds before the compact table stage wrote to the by-target topic and the
   * table-shards store: read as the entry of that record, so an upgrade restores and goes on.
   */
  private static boolean isAvroRecord(byte[] data) {
    return data.length > 2 && data[0] == (byte) 0xC3 && data[1] == 0x01;
  }

  private static OptionalLong legacyOptional(long v) {
    return v == Long.MIN_VALUE ? OptionalLong.empty() : OptionalLong.of(v);
  }
}
