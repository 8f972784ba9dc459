package io.demandfold.core.codec;

import io.demandfold.avro.SealedTime;
import io.demandfold.core.Causes;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.InvalidEventException.Reason;
import io.demandfold.core.Printable;
import io.demandfold.core.SealedTimes;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.Source;
import io.demandfold.core.Versions;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.SystemLimitException;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.MissingSchemaException;
import org.apache.avro.message.SchemaStore;
import org.apache.avro.util.ClassSecurityValidator;

/**
 * Avro single-object encoding (marker {@code C3 01}, the 8-byte CRC-64-AVRO fingerprint of the
 * writer schema, then the Avro binary body) of events and stored records.
 *
 * <p>Records of the current schemas are written and read by {@link AvroBinary} (the same bytes as
 * Avro's writer, without its generic machinery on the hot path). Readers resolve older writer
 * schemas: every schema under {@code schemas/history/} is registered by fingerprint, and its
 * records are read into the current schema (new fields take their defaults). An unknown fingerprint
 * is an {@link InvalidEventException} with reason {@link Reason#UNKNOWN_SCHEMA}.
 */
public final class AvroCodec {
  /** Older writer schemas, shipped in the jar under {@code schemas/history/}. */
  static final List<String> HISTORY = List.of("DemandEvent-1.avsc");

  /** The first two bytes of every single-object encoded record. */
  public static final byte MARKER_0 = (byte) 0xC3;

  public static final byte MARKER_1 = (byte) 0x01;

  private static final BinaryMessageDecoder<io.demandfold.avro.DemandEvent> EVENT_DECODER;
  private static final BinaryMessageDecoder<io.demandfold.avro.ShardRecord> RECORD_DECODER;
  private static final byte[] EVENT_HEADER;
  private static final byte[] RECORD_HEADER;

  /**
   * Largest string a record may claim: a 20-byte hostile record could otherwise make the decoder
   * allocate 2 GiB. Far above the 1 KiB target and 256-byte shard limits, so that an oversized
   * shard id still gets its precise field error.
   */
  static final int MAX_STRING_BYTES = 1 << 20;

  /** Most items a record may claim in one array; sealed_times beyond 4096 get a field error. */
  static final int MAX_COLLECTION_ITEMS = 1_000_000;

  static {
    limitDecoderAllocations();
    ClassSecurityValidator.setGlobal(
        ClassSecurityValidator.composite(
            ClassSecurityValidator.getGlobal(),
            ClassSecurityValidator.builder()
                .add(io.demandfold.avro.DemandEvent.class)
                .add(io.demandfold.avro.ShardRecord.class)
                .add(io.demandfold.avro.TableRecord.class)
                .add(io.demandfold.avro.TableShard.class)
                .add(io.demandfold.avro.SealedTime.class)
                .add(io.demandfold.avro.Mark.class)
                .add(io.demandfold.avro.Source.class)
                .build()));
    SchemaStore.Cache history = new SchemaStore.Cache();
    for (Schema s : historySchemas()) {
      history.addSchema(s);
    }
    EVENT_DECODER = io.demandfold.avro.DemandEvent.createDecoder(history);
    RECORD_DECODER = io.demandfold.avro.ShardRecord.createDecoder(new SchemaStore.Cache());
    EVENT_HEADER = header(io.demandfold.avro.DemandEvent.getClassSchema());
    RECORD_HEADER = header(io.demandfold.avro.ShardRecord.getClassSchema());
  }

  private AvroCodec() {}

  /**
   * Sets Avro's decoder limits (system properties, unless the operator set them) and makes Avro
   * re-read them, whatever was loaded before.
   */
  private static void limitDecoderAllocations() {
    setDefault(SystemLimitException.MAX_STRING_LENGTH_PROPERTY, MAX_STRING_BYTES);
    setDefault(SystemLimitException.MAX_BYTES_LENGTH_PROPERTY, MAX_STRING_BYTES);
    setDefault(SystemLimitException.MAX_COLLECTION_LENGTH_PROPERTY, MAX_COLLECTION_ITEMS);
    try {
      Method reset = SystemLimitException.class.getDeclaredMethod("resetLimits");
      reset.setAccessible(true);
      reset.invoke(null);
    } catch (ReflectiveOperationException | RuntimeException e) {
      // Limits were read at class initialisation, which the properties above preceded.
    }
  }

  private static void setDefault(String property, int value) {
    if (System.getProperty(property) == null) {
      System.setProperty(property, Integer.toString(value));
    }
  }

  /** The historic writer schemas this reader resolves, parsed from the class path. */
  static List<Schema> historySchemas() {
    List<Schema> schemas = new ArrayList<>();
    for (String name : HISTORY) {
      String path = "/schemas/history/" + name;
      try (InputStream in = AvroCodec.class.getResourceAsStream(path)) {
        if (in == null) {
          throw new IllegalStateException("missing schema resource " + path);
        }
        schemas.add(new Schema.Parser().parse(in));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return schemas;
  }

  /** The fingerprint of the current event schema, as written after the marker. */
  public static long eventSchemaFingerprint() {
    return SchemaNormalization.parsingFingerprint64(
        io.demandfold.avro.DemandEvent.getClassSchema());
  }

  /** Whether {@code bytes} start with the single-object marker {@code C3 01}. */
  public static boolean isSingleObject(byte[] bytes) {
    return bytes.length >= 2 && bytes[0] == MARKER_0 && bytes[1] == MARKER_1;
  }

  /** An event in single-object encoding with the current schema. */
  public static byte[] encodeEvent(DemandEvent e) {
    ShardRecord r = e.record();
    AvroBinary.Writer w = new AvroBinary.Writer(96 + 20 * r.sealedTimes().size());
    w.bytes(EVENT_HEADER).varLong(Versions.CURRENT).string(e.target()).string(r.shard());
    AvroBinary.writeTail(w, r);
    return w.toBytes();
  }

  /** A stored record in single-object encoding (the state store format). */
  public static byte[] encodeRecord(ShardRecord r) {
    AvroBinary.Writer w = new AvroBinary.Writer(80 + 20 * r.sealedTimes().size());
    w.bytes(RECORD_HEADER).varLong(Versions.CURRENT).string(r.shard());
    AvroBinary.writeTail(w, r);
    return w.toBytes();
  }

  /**
   * Reads an event written with the current schema or any schema of {@link #HISTORY}.
   *
   * @throws InvalidEventException naming what is wrong
   */
  public static DemandEvent decodeEvent(byte[] bytes) {
    if (hasHeader(bytes, EVENT_HEADER)) {
      AvroBinary.Reader in = new AvroBinary.Reader(bytes, EVENT_HEADER.length);
      in.version();
      String target = in.string("target");
      String shard = in.string("shard");
      return new DemandEvent(target, in.tail(shard));
    }
    io.demandfold.avro.DemandEvent a = decode(EVENT_DECODER, bytes);
    ShardRecord r = record(a);
    return new DemandEvent(a.getTarget(), r);
  }

  /**
   * Reads a stored record written by {@link #encodeRecord}.
   *
   * @throws InvalidEventException naming what is wrong
   */
  public static ShardRecord decodeRecord(byte[] bytes) {
    if (hasHeader(bytes, RECORD_HEADER)) {
      AvroBinary.Reader in = new AvroBinary.Reader(bytes, RECORD_HEADER.length);
      in.version();
      return in.tail(in.string("shard"));
    }
    return record(decode(RECORD_DECODER, bytes));
  }

  /**
   * The record of a decoded event or stored record, checked: the two schemas name the version and
   * the shard's fields alike.
   */
  private static ShardRecord record(GenericRecord a) {
    Versions.check((Integer) a.get("v"));
    @SuppressWarnings("unchecked")
    List<SealedTime> times = (List<SealedTime>) a.get("sealed_times");
    if (times.size() > io.demandfold.core.Limits.MAX_EVENT_SEALED_TIMES) {
      throw new InvalidEventException(
          Reason.INVALID_FIELD,
          "sealed_times has "
              + times.size()
              + " entries; at most "
              + io.demandfold.core.Limits.MAX_EVENT_SEALED_TIMES);
    }
    SealedTimes.Builder tb = new SealedTimes.Builder();
    for (SealedTime t : times) {
      tb.put(t.getGeneration(), t.getFlushedAtMs());
    }
    return ShardRecord.builder((String) a.get("shard"))
        .sealedThrough((Long) a.get("sealed_through"))
        .sealedBytesThrough((Long) a.get("sealed_bytes_through"))
        .mergedThrough((Long) a.get("merged_through"))
        .mergedEpoch((Long) a.get("merged_epoch"))
        .flushedAtMs((Long) a.get("flushed_at_ms"))
        .writerEpoch((Long) a.get("writer_epoch"))
        .source(fromAvro((io.demandfold.avro.Source) a.get("source")))
        .sealedTimes(tb.build())
        .build();
  }

  /** The single-object header of records written with {@code schema}. */
  private static byte[] header(Schema schema) {
    long fp = SchemaNormalization.parsingFingerprint64(schema);
    byte[] h = new byte[10];
    h[0] = MARKER_0;
    h[1] = MARKER_1;
    for (int i = 0; i < 8; i++) {
      h[2 + i] = (byte) (fp >>> (8 * i));
    }
    return h;
  }

  private static boolean hasHeader(byte[] bytes, byte[] header) {
    return bytes.length >= header.length
        && java.util.Arrays.equals(bytes, 0, header.length, header, 0, header.length);
  }

  private static <T> T decode(BinaryMessageDecoder<T> decoder, byte[] bytes) {
    if (bytes.length < 10) {
      throw new InvalidEventException(
          Reason.UNDECODABLE,
          "truncated Avro payload: "
              + bytes.length
              + " bytes, shorter than the 10-byte single-object header");
    }
    try {
      return decoder.decode(bytes);
    } catch (MissingSchemaException e) {
      throw new InvalidEventException(
          Reason.UNKNOWN_SCHEMA,
          "unknown Avro schema fingerprint "
              + fingerprintHex(bytes)
              + " (not a known writer schema)",
          e);
    } catch (IOException
        | AvroRuntimeException
        | IndexOutOfBoundsException
        | NegativeArraySizeException e) {
      Throwable root = Causes.root(e);
      throw new InvalidEventException(
          Reason.UNDECODABLE,
          "truncated or malformed Avro payload ("
              + bytes.length
              + " bytes): "
              + root.getClass().getSimpleName()
              + (root.getMessage() == null ? "" : ": " + Printable.escape(root.getMessage())),
          e);
    }
  }

  /** The fingerprint bytes 2..9 of a single-object record, as 16 hex digits. */
  static String fingerprintHex(byte[] bytes) {
    StringBuilder sb = new StringBuilder("0x");
    for (int i = 9; i >= 2; i--) {
      sb.append(String.format("%02x", bytes[i] & 0xFF));
    }
    return sb.toString();
  }

  private static Source fromAvro(io.demandfold.avro.Source s) {
    switch (s) {
      case writer:
        return Source.WRITER;
      case executor:
        return Source.EXECUTOR;
      default:
        return Source.SCAN;
    }
  }
}
