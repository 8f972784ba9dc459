package io.demandfold.core;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * An event without its target, which is also the shape of the stored per-shard record
 * (docs/model.md section 2). Immutable. Build one with {@link #builder(String)}, which validates
 * every field; records produced by {@link Join} are valid by construction.
 *
 * <p>{@code merged_through} and {@code merged_epoch} are optional; absent is held as {@link
 * #ABSENT} in the primitive accessors.
 *
 * <p>Why one class of this size: an immutable value type with its builder, and the checks that keep
 * every instance valid (field ranges, the shard id's bytes) in the one constructor every decoder
 * goes through.
 */
public final class ShardRecord {
  /** The value of an absent optional u64 field in the primitive accessors. */
  public static final long ABSENT = -1;

  private final String shard;
  private final long sealedThrough;
  private final long sealedBytesThrough;
  private final long mergedThrough;
  private final long mergedEpoch;
  private final long flushedAtMs;
  private final long writerEpoch;
  private final Source source;
  private final SealedTimes sealedTimes;

  ShardRecord(
      String shard,
      long sealedThrough,
      long sealedBytesThrough,
      long mergedThrough,
      long mergedEpoch,
      long flushedAtMs,
      long writerEpoch,
      Source source,
      SealedTimes sealedTimes) {
    this.shard = shard;
    this.sealedThrough = sealedThrough;
    this.sealedBytesThrough = sealedBytesThrough;
    this.mergedThrough = mergedThrough;
    this.mergedEpoch = mergedEpoch;
    this.flushedAtMs = flushedAtMs;
    this.writerEpoch = writerEpoch;
    this.source = source;
    this.sealedTimes = sealedTimes;
  }

  /** A builder for a record of {@code shard}. */
  public static Builder builder(String shard) {
    return new Builder(shard);
  }

  public String shard() {
    return shard;
  }

  public long sealedThrough() {
    return sealedThrough;
  }

  public long sealedBytesThrough() {
    return sealedBytesThrough;
  }

  public boolean hasMergedThrough() {
    return mergedThrough != ABSENT;
  }

  /** {@code merged_through}, or {@link #ABSENT}. */
  public long mergedThroughOrAbsent() {
    return mergedThrough;
  }

  public OptionalLong mergedThrough() {
    return mergedThrough == ABSENT ? OptionalLong.empty() : OptionalLong.of(mergedThrough);
  }

  /** {@code merged_epoch}, or {@link #ABSENT}. */
  public long mergedEpochOrAbsent() {
    return mergedEpoch;
  }

  public OptionalLong mergedEpoch() {
    return mergedEpoch == ABSENT ? OptionalLong.empty() : OptionalLong.of(mergedEpoch);
  }

  public long flushedAtMs() {
    return flushedAtMs;
  }

  public long writerEpoch() {
    return writerEpoch;
  }

  public Source source() {
    return source;
  }

  public SealedTimes sealedTimes() {
    return sealedTimes;
  }

  /** The sealed mark {@code (sealed_through, writer_epoch)}. */
  public Mark sealedMark() {
    return new Mark(sealedThrough, writerEpoch);
  }

  /**
   * The merged mark {@code (merged_through, merged_epoch if present else writer_epoch)}, or {@code
   * null} when merged is absent.
   */
  public Mark mergedMark() {
    return mergedThrough == ABSENT ? null : new Mark(mergedThrough, effectiveMergedEpoch());
  }

  long effectiveMergedEpoch() {
    return mergedEpoch != ABSENT ? mergedEpoch : writerEpoch;
  }

  /** A builder preset with every field of this record. */
  public Builder toBuilder() {
    Builder b = new Builder(shard);
    b.sealedThrough = sealedThrough;
    b.sealedBytesThrough = sealedBytesThrough;
    b.mergedThrough = mergedThrough;
    b.mergedEpoch = mergedEpoch;
    b.flushedAtMs = flushedAtMs;
    b.hasFlushedAt = true;
    b.writerEpoch = writerEpoch;
    b.source = source;
    b.sealedTimes = sealedTimes;
    return b;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof ShardRecord)) {
      return false;
    }
    ShardRecord r = (ShardRecord) o;
    return sealedThrough == r.sealedThrough
        && sealedBytesThrough == r.sealedBytesThrough
        && mergedThrough == r.mergedThrough
        && mergedEpoch == r.mergedEpoch
        && flushedAtMs == r.flushedAtMs
        && writerEpoch == r.writerEpoch
        && source == r.source
        && shard.equals(r.shard)
        && sealedTimes.equals(r.sealedTimes);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        shard,
        sealedThrough,
        sealedBytesThrough,
        mergedThrough,
        mergedEpoch,
        flushedAtMs,
        writerEpoch,
        source,
        sealedTimes);
  }

  @Override
  public String toString() {
    return "ShardRecord{shard="
        + shard
        + ", sealed="
        + sealedThrough
        + "@"
        + writerEpoch
        + ", bytes="
        + sealedBytesThrough
        + ", merged="
        + (mergedThrough == ABSENT ? "none" : mergedThrough + "@" + effectiveMergedEpoch())
        + ", flushedAtMs="
        + flushedAtMs
        + ", source="
        + source.wire()
        + ", sealedTimes="
        + sealedTimes
        + "}";
  }

  /**
   * Builds a validated record. Required: {@code sealed_through}, {@code flushed_at_ms}, {@code
   * writer_epoch}, {@code source}. Every failure is an {@link InvalidEventException} naming the
   * field and the value.
   */
  public static final class Builder {
    private final String shard;
    private long sealedThrough = ABSENT;
    private long sealedBytesThrough;
    private long mergedThrough = ABSENT;
    private long mergedEpoch = ABSENT;
    private long flushedAtMs;
    private boolean hasFlushedAt;
    private long writerEpoch = ABSENT;
    private Source source;
    private SealedTimes sealedTimes = SealedTimes.EMPTY;

    private Builder(String shard) {
      this.shard = shard;
    }

    public Builder sealedThrough(long v) {
      this.sealedThrough = u64("sealed_through", v);
      return this;
    }

    public Builder sealedBytesThrough(long v) {
      this.sealedBytesThrough = u64("sealed_bytes_through", v);
      return this;
    }

    public Builder mergedThrough(long v) {
      this.mergedThrough = u64("merged_through", v);
      return this;
    }

    /** Sets or, with {@code null}, clears {@code merged_through}. */
    public Builder mergedThrough(Long v) {
      this.mergedThrough = v == null ? ABSENT : u64("merged_through", v);
      return this;
    }

    public Builder mergedEpoch(long v) {
      this.mergedEpoch = u64("merged_epoch", v);
      return this;
    }

    /** Sets or, with {@code null}, clears {@code merged_epoch}. */
    public Builder mergedEpoch(Long v) {
      this.mergedEpoch = v == null ? ABSENT : u64("merged_epoch", v);
      return this;
    }

    public Builder flushedAtMs(long v) {
      this.flushedAtMs = v;
      this.hasFlushedAt = true;
      return this;
    }

    public Builder writerEpoch(long v) {
      this.writerEpoch = u64("writer_epoch", v);
      return this;
    }

    public Builder source(Source s) {
      this.source = s;
      return this;
    }

    public Builder sealedTimes(SealedTimes t) {
      this.sealedTimes = Objects.requireNonNull(t, "sealedTimes");
      return this;
    }

    /** Adds one sealed_times entry (for tests and publishers). */
    public Builder sealedTime(long generation, long timeMs) {
      SealedTimes.Builder b = new SealedTimes.Builder();
      for (int i = 0; i < sealedTimes.size(); i++) {
        b.put(sealedTimes.generation(i), sealedTimes.time(i));
      }
      this.sealedTimes = b.put(generation, timeMs).build();
      return this;
    }

    public ShardRecord build() {
      checkShard(shard);
      if (sealedThrough == ABSENT) {
        throw missing("sealed_through");
      }
      if (!hasFlushedAt) {
        throw missing("flushed_at_ms");
      }
      if (writerEpoch == ABSENT) {
        throw missing("writer_epoch");
      }
      if (source == null) {
        throw missing("source");
      }
      if (mergedEpoch != ABSENT && mergedThrough == ABSENT) {
        throw InvalidEventException.field(
            "field 'merged_epoch' is " + mergedEpoch + " but 'merged_through' is absent");
      }
      if (sealedTimes.size() > Limits.MAX_EVENT_SEALED_TIMES) {
        throw InvalidEventException.field(
            "sealed_times has "
                + sealedTimes.size()
                + " entries; at most "
                + Limits.MAX_EVENT_SEALED_TIMES);
      }
      return new ShardRecord(
          shard,
          sealedThrough,
          sealedBytesThrough,
          mergedThrough,
          mergedEpoch,
          flushedAtMs,
          writerEpoch,
          source,
          sealedTimes);
    }

    private static InvalidEventException missing(String field) {
      return InvalidEventException.field("missing required field '" + field + "'");
    }

    private static long u64(String field, long v) {
      if (v < 0) {
        throw InvalidEventException.field("field '" + field + "' is " + v + "; must be >= 0");
      }
      return v;
    }
  }

  /** Validates a shard id: 1..{@link Limits#MAX_SHARD_BYTES} UTF-8 bytes. */
  static void checkShard(String shard) {
    if (shard == null) {
      throw InvalidEventException.field("missing required field 'shard'");
    }
    if (shard.isEmpty()) {
      throw InvalidEventException.field("field 'shard' is empty");
    }
    int bytes = checkedUtf8Length("shard", shard);
    if (bytes > Limits.MAX_SHARD_BYTES) {
      throw InvalidEventException.field(
          "field 'shard' is " + bytes + " bytes; at most " + Limits.MAX_SHARD_BYTES);
    }
  }

  /**
   * The UTF-8 length of the text of field {@code field}, which must be Unicode text: a lone
   * surrogate (a {@code char} of a JSON escape such as {@code "\\ud800"}) has no UTF-8 encoding,
   * and encoding it anyway would turn it into {@code '?'} and merge distinct names into one key.
   *
   * @throws InvalidEventException naming the field and where the lone surrogate is
   */
  static int checkedUtf8Length(String field, String s) {
    int n = utf8Length(s);
    if (n < 0) {
      int at = -n - 1;
      throw InvalidEventException.field(
          String.format(
              "field '%s' has a lone surrogate \\u%04x at character %d; it is not Unicode text"
                  + " and has no UTF-8 encoding",
              field, (int) s.charAt(at), at));
    }
    return n;
  }

  /**
   * The UTF-8 length of {@code s}, counted without encoding it; {@code -1 - i} when the {@code
   * char} at {@code i} is a lone surrogate (see {@link Utf8#loneSurrogate}).
   */
  static int utf8Length(String s) {
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (!Character.isSurrogate(c)) {
        n += 3;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else {
        return -1 - i;
      }
    }
    return n;
  }
}
