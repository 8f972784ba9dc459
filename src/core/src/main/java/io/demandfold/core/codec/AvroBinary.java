package io.demandfold.core.codec;

import io.demandfold.core.InvalidEventException;
import io.demandfold.core.InvalidEventException.Reason;
import io.demandfold.core.Limits;
import io.demandfold.core.SealedTimes;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.Source;
import io.demandfold.core.Utf8;
import io.demandfold.core.Versions;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The Avro binary encoding of the current {@code ShardRecord} and {@code DemandEvent} schemas,
 * written and read by hand for the hot paths (the state store and the event topic). The bytes are
 * exactly what Avro's own writer produces for those schemas (tests compare them); records of other
 * writer schemas go through Avro's resolving decoder instead.
 *
 * <p>Reading is defensive: every length is checked against the bytes that remain, so hostile input
 * is a precise {@link InvalidEventException}, never a large allocation.
 */
final class AvroBinary {
  private AvroBinary() {}

  /** Appends Avro values to a growable buffer. */
  static final class Writer {
    private byte[] buf;
    private int pos;

    Writer(int capacity) {
      buf = new byte[capacity];
    }

    Writer bytes(byte[] b) {
      ensure(b.length);
      System.arraycopy(b, 0, buf, pos, b.length);
      pos += b.length;
      return this;
    }

    Writer varLong(long v) {
      ensure(10);
      long n = (v << 1) ^ (v >> 63);
      while ((n & ~0x7FL) != 0) {
        buf[pos++] = (byte) ((n & 0x7F) | 0x80);
        n >>>= 7;
      }
      buf[pos++] = (byte) n;
      return this;
    }

    Writer string(String s) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      varLong(b.length);
      return bytes(b);
    }

    /** A union of null and long, with {@link ShardRecord#ABSENT} as null. */
    Writer optionalLong(long v) {
      if (v == ShardRecord.ABSENT) {
        return varLong(0);
      }
      return varLong(1).varLong(v);
    }

    byte[] toBytes() {
      return Arrays.copyOf(buf, pos);
    }

    private void ensure(int n) {
      if (pos + n > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + n));
      }
    }
  }

  /** Writes the fields of a stored record after {@code shard}, as both schemas order them. */
  static void writeTail(Writer w, ShardRecord r) {
    w.varLong(r.sealedThrough())
        .varLong(r.sealedBytesThrough())
        .optionalLong(r.mergedThroughOrAbsent())
        .optionalLong(r.mergedEpochOrAbsent())
        .varLong(r.flushedAtMs())
        .varLong(r.writerEpoch())
        .varLong(sourceIndex(r.source()));
    SealedTimes t = r.sealedTimes();
    if (!t.isEmpty()) {
      w.varLong(t.size());
      for (int i = 0; i < t.size(); i++) {
        w.varLong(t.generation(i)).varLong(t.time(i));
      }
    }
    w.varLong(0);
  }

  /** Reads Avro values from a byte array, failing precisely on anything malformed. */
  static final class Reader {
    private final byte[] buf;
    private int pos;

    Reader(byte[] buf, int pos) {
      this.buf = buf;
      this.pos = pos;
    }

    long varLong(String field) {
      long n = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (pos >= buf.length) {
          throw truncated(field);
        }
        byte b = buf[pos++];
        n |= (long) (b & 0x7F) << shift;
        if ((b & 0x80) == 0) {
          return (n >>> 1) ^ -(n & 1);
        }
      }
      throw malformed("field '" + field + "' is not a valid varint");
    }

    int varInt(String field) {
      long v = varLong(field);
      if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
        throw malformed("field '" + field + "' is " + v + ", not an int");
      }
      return (int) v;
    }

    String string(String field) {
      long n = varLong(field);
      if (n < 0 || n > buf.length - pos) {
        throw new InvalidEventException(
            Reason.UNDECODABLE,
            "truncated or malformed Avro payload ("
                + buf.length
                + " bytes): field '"
                + field
                + "' claims "
                + n
                + " bytes, "
                + (buf.length - pos)
                + " remain");
      }
      String s;
      try {
        s = Utf8.decode(buf, pos, (int) n);
      } catch (CharacterCodingException e) {
        // a replacement character would merge distinct names into one key, as JSON refuses too
        throw new InvalidEventException(
            Reason.UNDECODABLE, "field '" + field + "' is not valid UTF-8");
      }
      pos += (int) n;
      return s;
    }

    long optionalLong(String field) {
      long branch = varLong(field);
      if (branch == 0) {
        return ShardRecord.ABSENT;
      }
      if (branch != 1) {
        throw malformed("field '" + field + "' has union branch " + branch);
      }
      return varLong(field);
    }

    Source source() {
      long i = varLong("source");
      switch ((int) i) {
        case 0:
          return Source.WRITER;
        case 1:
          return Source.EXECUTOR;
        case 2:
          return Source.SCAN;
        default:
          throw new InvalidEventException(
              Reason.INVALID_FIELD, "field 'source' has unknown symbol index " + i);
      }
    }

    SealedTimes sealedTimes() {
      SealedTimes.Builder b = new SealedTimes.Builder();
      int total = 0;
      while (true) {
        long count = varLong("sealed_times");
        if (count == 0) {
          return b.build();
        }
        if (count < 0) {
          count = -count;
          varLong("sealed_times");
        }
        if (count > (buf.length - pos) / 2) {
          throw malformed(
              "sealed_times claims " + count + " entries in " + (buf.length - pos) + " bytes");
        }
        total += count;
        if (total > Limits.MAX_EVENT_SEALED_TIMES) {
          throw new InvalidEventException(
              Reason.INVALID_FIELD,
              "sealed_times has more than " + Limits.MAX_EVENT_SEALED_TIMES + " entries");
        }
        for (long i = 0; i < count; i++) {
          b.put(varLong("sealed_times"), varLong("sealed_times"));
        }
      }
    }

    /** Reads the fields after {@code shard} into a validated record of {@code shard}. */
    ShardRecord tail(String shard) {
      ShardRecord.Builder r =
          ShardRecord.builder(shard)
              .sealedThrough(varLong("sealed_through"))
              .sealedBytesThrough(varLong("sealed_bytes_through"));
      long merged = optionalLong("merged_through");
      long mergedEpoch = optionalLong("merged_epoch");
      r.mergedThrough(merged == ShardRecord.ABSENT ? null : merged);
      r.mergedEpoch(mergedEpoch == ShardRecord.ABSENT ? null : mergedEpoch);
      r.flushedAtMs(varLong("flushed_at_ms")).writerEpoch(varLong("writer_epoch")).source(source());
      r.sealedTimes(sealedTimes());
      if (pos != buf.length) {
        throw malformed((buf.length - pos) + " unexpected bytes after the record");
      }
      return r.build();
    }

    /** Reads {@code v}, checking it first: a newer version may lay out the rest differently. */
    void version() {
      Versions.check(varInt("v"));
    }

    private InvalidEventException truncated(String field) {
      return new InvalidEventException(
          Reason.UNDECODABLE,
          "truncated or malformed Avro payload ("
              + buf.length
              + " bytes): ends inside field '"
              + field
              + "'");
    }

    private InvalidEventException malformed(String what) {
      return new InvalidEventException(
          Reason.UNDECODABLE,
          "truncated or malformed Avro payload (" + buf.length + " bytes): " + what);
    }
  }

  private static int sourceIndex(Source s) {
    switch (s) {
      case WRITER:
        return 0;
      case EXECUTOR:
        return 1;
      default:
        return 2;
    }
  }
}
