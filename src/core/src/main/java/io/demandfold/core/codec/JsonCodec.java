package io.demandfold.core.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.InvalidEventException.Reason;
import io.demandfold.core.Keys;
import io.demandfold.core.Printable;
import io.demandfold.core.SealedTimes;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.Source;
import io.demandfold.core.UnknownVersionException;
import io.demandfold.core.Versions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Canonical JSON of events and stored records, wire-compatible with the reference records.
 *
 * <p>Written compact, fields in the order {@code v, shard, sealed_through, sealed_bytes_through,
 * merged_through, merged_epoch, flushed_at_ms, writer_epoch, source, sealed_times}; {@code
 * merged_through} is {@code null} when absent, {@code merged_epoch} omitted when absent, {@code
 * sealed_times} omitted when empty (keys decimal, ascending). An event carries {@code target}
 * first; a stored record never does.
 *
 * <p>Read strictly: unknown fields are ignored, everything else that is wrong is an {@link
 * InvalidEventException} naming the field and the value. An unknown {@code v} is reported before
 * any other field error, since a newer schema may legitimately differ.
 *
 * <p>Why one class of this size: it is one format, read and written in one place. The reader goes
 * field by field with a streaming parser, so that hostile input costs bounded work and every error
 * names its field; the writer makes the canonical bytes that etcd and replays compare. Together,
 * reader and writer stay each other's inverse (JsonCodecTest round-trips them).
 */
public final class JsonCodec {
  private static final JsonFactory FACTORY = boundedFactory();

  /**
   * A new JSON factory for reading untrusted JSON: nesting, number and string lengths bounded, so
   * that a hostile value costs bounded memory and time. A new one each time, so that configuring
   * one reader never changes another.
   */
  public static JsonFactory boundedFactory() {
    return JsonFactory.builder()
        .streamReadConstraints(
            StreamReadConstraints.builder()
                .maxNestingDepth(64)
                .maxNumberLength(64)
                .maxStringLength(1 << 20)
                .build())
        .build();
  }

  private JsonCodec() {}

  /**
   * Whether {@code bytes} is one well-formed JSON value (anything: an object, an array, a string),
   * so that a value that fails to decode can be told apart from one that is not JSON at all.
   */
  public static boolean isJson(byte[] bytes) {
    if (bytes == null) {
      return false;
    }
    try (JsonParser p = FACTORY.createParser(bytes)) {
      if (p.nextToken() == null) {
        return false;
      }
      p.skipChildren();
      return p.nextToken() == null;
    } catch (IOException e) {
      return false;
    }
  }

  /** The canonical JSON of a stored record (the etcd value). */
  public static byte[] encodeRecord(ShardRecord r) {
    StringBuilder sb = new StringBuilder(160 + 24 * r.sealedTimes().size());
    appendRecord(sb, r);
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** The canonical JSON of an event: {@code target} first, then the record's fields. */
  public static byte[] encodeEvent(DemandEvent e) {
    ShardRecord r = e.record();
    StringBuilder sb = new StringBuilder(200 + 24 * r.sealedTimes().size());
    sb.append("{\"target\":");
    JsonText.string(sb, e.target());
    sb.append(',');
    appendFields(sb, r);
    sb.append('}');
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Appends the canonical JSON object of {@code r}. */
  public static void appendRecord(StringBuilder sb, ShardRecord r) {
    sb.append('{');
    appendFields(sb, r);
    sb.append('}');
  }

  private static void appendFields(StringBuilder sb, ShardRecord r) {
    sb.append("\"v\":").append(Versions.CURRENT);
    JsonText.field(sb, "shard");
    JsonText.string(sb, r.shard());
    JsonText.field(sb, "sealed_through").append(r.sealedThrough());
    JsonText.field(sb, "sealed_bytes_through").append(r.sealedBytesThrough());
    JsonText.field(sb, "merged_through");
    if (r.hasMergedThrough()) {
      sb.append(r.mergedThroughOrAbsent());
    } else {
      sb.append("null");
    }
    if (r.mergedEpochOrAbsent() != ShardRecord.ABSENT) {
      JsonText.field(sb, "merged_epoch").append(r.mergedEpochOrAbsent());
    }
    JsonText.field(sb, "flushed_at_ms").append(r.flushedAtMs());
    JsonText.field(sb, "writer_epoch").append(r.writerEpoch());
    JsonText.field(sb, "source").append('"').append(r.source().wire()).append('"');
    SealedTimes t = r.sealedTimes();
    if (!t.isEmpty()) {
      JsonText.field(sb, "sealed_times").append('{');
      for (int i = 0; i < t.size(); i++) {
        if (i > 0) {
          sb.append(',');
        }
        sb.append('"').append(t.generation(i)).append("\":").append(t.time(i));
      }
      sb.append('}');
    }
  }

  /**
   * Reads an event (with {@code target}).
   *
   * @throws InvalidEventException naming what is wrong
   */
  public static DemandEvent decodeEvent(byte[] bytes) {
    Fields f = parse(bytes);
    return new DemandEvent(f.target, f.build());
  }

  /**
   * Reads a stored record; a {@code target} field, if any, is ignored.
   *
   * @throws io.demandfold.core.UnknownVersionException when {@code v} is not 0 or 1
   * @throws InvalidEventException naming what else is wrong
   */
  public static ShardRecord decodeRecord(byte[] bytes) {
    return parse(bytes).build();
  }

  private static Fields parse(byte[] bytes) {
    Fields f = new Fields();
    try (JsonParser p = FACTORY.createParser(bytes)) {
      JsonToken t = p.nextToken();
      if (t != JsonToken.START_OBJECT) {
        throw new InvalidEventException(
            Reason.UNDECODABLE, "expected a JSON object, got " + describe(p, t));
      }
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken vt = p.nextToken();
        try {
          f.read(p, name, vt);
        } catch (InvalidEventException e) {
          if (f.firstError == null) {
            f.firstError = e;
          }
          p.skipChildren();
        }
      }
      if (t != JsonToken.END_OBJECT) {
        throw new InvalidEventException(Reason.UNDECODABLE, "malformed JSON object");
      }
      if (p.nextToken() != null) {
        throw new InvalidEventException(
            Reason.UNDECODABLE, "unexpected data after the JSON object at " + where(p));
      }
    } catch (StreamConstraintsException e) {
      throw new InvalidEventException(
          Reason.UNDECODABLE, "JSON over limits: " + Printable.escape(e.getOriginalMessage()), e);
    } catch (JsonParseException e) {
      throw new InvalidEventException(
          Reason.UNDECODABLE,
          "malformed JSON at "
              + where(e.getProcessor())
              + ": "
              + Printable.escape(e.getOriginalMessage()),
          e);
    } catch (IOException e) {
      throw new InvalidEventException(
          Reason.UNDECODABLE, "unreadable JSON: " + Printable.escape(e.getMessage()), e);
    }
    if (f.hasV) {
      Versions.check(f.v);
    }
    if (f.firstError != null) {
      throw f.firstError;
    }
    return f;
  }

  private static String where(Object processor) {
    if (processor instanceof JsonParser) {
      JsonParser p = (JsonParser) processor;
      return "line "
          + p.currentLocation().getLineNr()
          + " column "
          + p.currentLocation().getColumnNr();
    }
    return "an unknown position";
  }

  /** The raw fields of one JSON object, checked field by field. */
  private static final class Fields {
    /** The fields read; each one's bit in {@link #seen} is {@code 1 << } its index. */
    private static final List<String> NAMES =
        List.of(
            "v",
            "target",
            "shard",
            "sealed_through",
            "sealed_bytes_through",
            "merged_through",
            "merged_epoch",
            "flushed_at_ms",
            "writer_epoch",
            "source",
            "sealed_times");

    int seen;
    boolean hasV;
    long v;
    String target;
    String shard;
    Long sealedThrough;
    long sealedBytes;
    Long mergedThrough;
    Long mergedEpoch;
    Long flushedAt;
    Long writerEpoch;
    Source source;
    SealedTimes sealedTimes = SealedTimes.empty();
    InvalidEventException firstError;

    void read(JsonParser p, String name, JsonToken t) throws IOException {
      int index = NAMES.indexOf(name);
      if (index < 0) {
        p.skipChildren();
        return;
      }
      if ((seen & (1 << index)) != 0) {
        throw field("field '" + name + "' appears more than once");
      }
      seen |= 1 << index;
      switch (name) {
        case "v" -> {
          v = readVersion(p, t);
          hasV = true;
        }
        case "target" -> target = readString(p, t, name);
        case "shard" -> shard = readString(p, t, name);
        case "sealed_through" -> sealedThrough = readU64(p, t, name);
        case "sealed_bytes_through" -> sealedBytes = readU64(p, t, name);
        case "merged_through" -> mergedThrough = readOptionalU64(p, t, name);
        case "merged_epoch" -> mergedEpoch = readOptionalU64(p, t, name);
        case "flushed_at_ms" -> flushedAt = readI64(p, t, name);
        case "writer_epoch" -> writerEpoch = readU64(p, t, name);
        case "source" -> source = readSource(p, t);
        case "sealed_times" -> sealedTimes = readSealedTimes(p, t);
        default -> throw new IllegalStateException("no reader for field " + name);
      }
    }

    ShardRecord build() {
      if (shard == null) {
        throw field("missing required field 'shard'");
      }
      ShardRecord.Builder b =
          ShardRecord.builder(shard).sealedBytesThrough(sealedBytes).sealedTimes(sealedTimes);
      if (sealedThrough != null) {
        b.sealedThrough(sealedThrough);
      }
      if (flushedAt != null) {
        b.flushedAtMs(flushedAt);
      }
      if (writerEpoch != null) {
        b.writerEpoch(writerEpoch);
      }
      return b.source(source).mergedThrough(mergedThrough).mergedEpoch(mergedEpoch).build();
    }
  }

  private static long readVersion(JsonParser p, JsonToken t) throws IOException {
    if (t != JsonToken.VALUE_NUMBER_INT) {
      throw field("field 'v': expected an integer, got " + describe(p, t));
    }
    if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
      throw new UnknownVersionException(Keys.abbreviate(p.getText()));
    }
    return p.getLongValue();
  }

  private static String readString(JsonParser p, JsonToken t, String name) throws IOException {
    if (t != JsonToken.VALUE_STRING) {
      throw field("field '" + name + "': expected a string, got " + describe(p, t));
    }
    return p.getText();
  }

  private static Source readSource(JsonParser p, JsonToken t) throws IOException {
    String s = readString(p, t, "source");
    Source source = Source.fromWire(s);
    if (source == null) {
      throw field(
          "field 'source' is \""
              + Keys.abbreviate(s)
              + "\"; expected \"writer\", \"executor\" or \"scan\"");
    }
    return source;
  }

  /** A u64 field that may be {@code null}. */
  private static Long readOptionalU64(JsonParser p, JsonToken t, String name) throws IOException {
    return t == JsonToken.VALUE_NULL ? null : readU64(p, t, name);
  }

  private static long readU64(JsonParser p, JsonToken t, String name) throws IOException {
    long v = readLong(p, t, name, "a non-negative integer", "out of range 0.." + Long.MAX_VALUE);
    if (v < 0) {
      throw field("field '" + name + "' is " + v + "; must be >= 0");
    }
    return v;
  }

  private static long readI64(JsonParser p, JsonToken t, String name) throws IOException {
    return readLong(p, t, name, "an integer", "out of range for a signed 64-bit integer");
  }

  /**
   * An integer field that fits a long: otherwise an error saying it should be {@code expected}, or,
   * when it is a larger integer, that it is {@code outOfRange}.
   */
  private static long readLong(
      JsonParser p, JsonToken t, String name, String expected, String outOfRange)
      throws IOException {
    if (t != JsonToken.VALUE_NUMBER_INT) {
      throw field("field '" + name + "': expected " + expected + ", got " + describe(p, t));
    }
    if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
      throw field("field '" + name + "' is " + Keys.abbreviate(p.getText()) + "; " + outOfRange);
    }
    return p.getLongValue();
  }

  private static SealedTimes readSealedTimes(JsonParser p, JsonToken t) throws IOException {
    if (t != JsonToken.START_OBJECT) {
      throw field(
          "field 'sealed_times': expected an object of generation to time, got " + describe(p, t));
    }
    SealedTimes.Builder b = new SealedTimes.Builder();
    InvalidEventException error = null;
    while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
      String key = p.currentName();
      JsonToken vt = p.nextToken();
      if (error != null) {
        p.skipChildren();
        continue;
      }
      try {
        long g = parseGeneration(key);
        b.put(g, readI64(p, vt, "sealed_times[\"" + key + "\"]"));
      } catch (InvalidEventException e) {
        error = e;
        p.skipChildren();
      }
    }
    if (error != null) {
      throw error;
    }
    return b.build();
  }

  /**
   * A {@code sealed_times} key: a decimal generation in 0..Long.MAX_VALUE, without sign or leading
   * zeros, as the canonical form writes it.
   */
  static long parseGeneration(String key) {
    int n = key.length();
    boolean decimal = n > 0 && n <= 19 && (n == 1 || key.charAt(0) != '0');
    for (int i = 0; decimal && i < n; i++) {
      char c = key.charAt(i);
      decimal = c >= '0' && c <= '9';
    }
    if (decimal) {
      try {
        return Long.parseLong(key);
      } catch (NumberFormatException e) {
        // 19 digits above Long.MAX_VALUE: reported below
      }
    }
    throw field(
        "sealed_times key \""
            + Keys.abbreviate(key)
            + "\" is not a decimal generation in 0.."
            + Long.MAX_VALUE);
  }

  private static String describe(JsonParser p, JsonToken t) throws IOException {
    if (t == null) {
      return "end of input";
    }
    switch (t) {
      case VALUE_STRING:
        return "string \"" + Keys.abbreviate(p.getText()) + "\"";
      case VALUE_NUMBER_INT:
      case VALUE_NUMBER_FLOAT:
        return "number " + Keys.abbreviate(p.getText());
      case VALUE_TRUE:
      case VALUE_FALSE:
        return "boolean " + p.getText();
      case VALUE_NULL:
        return "null";
      case START_OBJECT:
        return "an object";
      case START_ARRAY:
        return "an array";
      default:
        return t.asString() == null ? t.name() : t.asString();
    }
  }

  private static InvalidEventException field(String message) {
    return new InvalidEventException(Reason.INVALID_FIELD, message);
  }
}
