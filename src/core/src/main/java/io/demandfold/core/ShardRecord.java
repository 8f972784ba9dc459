package io.demandfold.core;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * An event without its target, which is also the shape of the stored per-shard record
 * (docs/model.md section 2). Immutable, and valid: the constructor checks every field, so that no
 * record, built, decoded or joined, holds a value the model does not allow. Build one with {@link
 * #builder(String)}.
 *
 * <p>{@code merged_through} and {@code merged_epoch} are optional; absent is held as {@link
 * #ABSENT}.
 *
 * <p>Why one file of this size: the value with its builder, and the checks that keep every instance
 * valid (field ranges, the shard id's bytes) that the constructor and the builder share.
 *
 * @param mergedThroughOrAbsent {@code merged_through}, or {@link #ABSENT}
 * @param mergedEpochOrAbsent {@code merged_epoch}, or {@link #ABSENT}
 */
public record ShardRecord(
    String shard,
    long sealedThrough,
    long sealedBytesThrough,
    long mergedThroughOrAbsent,
    long mergedEpochOrAbsent,
    long flushedAtMs,
    long writerEpoch,
    Source source,
    SealedTimes sealedTimes) {
  /** The value of an absent optional u64 field in the primitive accessors. */
  public static final long ABSENT = -1;

  /**
   * @throws InvalidEventException naming the first field that is missing or out of range
   */
  public ShardRecord {
    check(
        shard,
        sealedThrough,
        sealedBytesThrough,
        mergedThroughOrAbsent,
        mergedEpochOrAbsent,
        true,
        writerEpoch,
        source,
        sealedTimes);
  }

  /**
   * Checks the fields in the order their failures are reported: the shard id, the required fields
   * ({@code hasFlushedAt}: whether {@code flushed_at_ms} was given, the one a value cannot say),
   * the ranges, the optional pair, the number of sealed times.
   */
  private static void check(
      String shard,
      long sealedThrough,
      long sealedBytesThrough,
      long mergedThrough,
      long mergedEpoch,
      boolean hasFlushedAt,
      long writerEpoch,
      Source source,
      SealedTimes sealedTimes) {
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
    Objects.requireNonNull(sealedTimes, "sealedTimes");
    u64("sealed_through", sealedThrough);
    u64("sealed_bytes_through", sealedBytesThrough);
    u64("writer_epoch", writerEpoch);
    optionalU64("merged_through", mergedThrough);
    optionalU64("merged_epoch", mergedEpoch);
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
  }

  /** A builder for a record of {@code shard}. */
  public static Builder builder(String shard) {
    return new Builder(shard);
  }

  public boolean hasMergedThrough() {
    return mergedThroughOrAbsent != ABSENT;
  }

  public OptionalLong mergedThrough() {
    return hasMergedThrough() ? OptionalLong.of(mergedThroughOrAbsent) : OptionalLong.empty();
  }

  public OptionalLong mergedEpoch() {
    return mergedEpochOrAbsent == ABSENT
        ? OptionalLong.empty()
        : OptionalLong.of(mergedEpochOrAbsent);
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
    return hasMergedThrough() ? new Mark(mergedThroughOrAbsent, effectiveMergedEpoch()) : null;
  }

  long effectiveMergedEpoch() {
    return mergedEpochOrAbsent != ABSENT ? mergedEpochOrAbsent : writerEpoch;
  }

  /** A builder preset with every field of this record. */
  public Builder toBuilder() {
    Builder b = new Builder(shard);
    b.sealedThrough = sealedThrough;
    b.sealedBytesThrough = sealedBytesThrough;
    b.mergedThrough = mergedThroughOrAbsent;
    b.mergedEpoch = mergedEpochOrAbsent;
    b.flushedAtMs = flushedAtMs;
    b.hasFlushedAt = true;
    b.writerEpoch = writerEpoch;
    b.source = source;
    b.sealedTimes = sealedTimes;
    return b;
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
        + (hasMergedThrough() ? mergedThroughOrAbsent + "@" + effectiveMergedEpoch() : "none")
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
      if (!hasFlushedAt) {
        check(
            shard,
            sealedThrough,
            sealedBytesThrough,
            mergedThrough,
            mergedEpoch,
            false,
            writerEpoch,
            source,
            sealedTimes);
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

  /** Checks that {@code v} is a u64 or {@link #ABSENT}. */
  private static void optionalU64(String field, long v) {
    if (v != ABSENT) {
      u64(field, v);
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
