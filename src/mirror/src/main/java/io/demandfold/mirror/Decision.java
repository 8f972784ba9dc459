package io.demandfold.mirror;

import io.demandfold.core.InvalidEventException;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;
import io.demandfold.core.UnknownVersionException;
import io.demandfold.core.codec.JsonCodec;

/**
 * What the mirror does with one key, decided from what etcd holds: write {@code value}, the
 * encoding of {@code record}, or nothing; and the {@link MirrorResult} it counts.
 *
 * @param <R> what the key holds: {@link ShardRecord} or {@link TableRecord}
 * @param result how the key ends when the write (if any) succeeds
 * @param value the bytes to write, {@code null} when nothing is written
 * @param record what {@code value} encodes; for {@link MirrorResult#UNCHANGED} the stored record,
 *     decoded, worth remembering; {@code null} when there is nothing to remember (a derived-only
 *     table record, a replaced value)
 * @param replacedInvalid whether the write replaces a stored value that is not JSON
 */
record Decision<R>(MirrorResult result, byte[] value, R record, boolean replacedInvalid) {

  /** Write {@code value}, the encoding of {@code record}. */
  static <R> Decision<R> write(byte[] value, R record, boolean replacedInvalid) {
    return new Decision<>(MirrorResult.WRITTEN, value, record, replacedInvalid);
  }

  /** Write a table's derived fields alone; counted as {@link MirrorResult#TOO_LARGE}. */
  static <R> Decision<R> writeDerivedOnly(byte[] value) {
    return new Decision<>(MirrorResult.TOO_LARGE, value, null, false);
  }

  /** Nothing to write; {@code stored} is the decoded current value, or {@code null}. */
  static <R> Decision<R> unchanged(R stored) {
    return new Decision<>(MirrorResult.UNCHANGED, null, stored, false);
  }

  /** The stored record is of a schema version this reader does not know: never overwritten. */
  static <R> Decision<R> refuseNewerSchema() {
    return new Decision<>(MirrorResult.REFUSED_NEWER_SCHEMA, null, null, false);
  }

  /** The stored value is JSON this reader cannot join: never overwritten. */
  static <R> Decision<R> refuseUnreadable() {
    return new Decision<>(MirrorResult.REFUSED_UNREADABLE, null, null, false);
  }

  /**
   * What to do with a stored value that does not decode ({@code e}): a record of a schema version
   * this reader does not know, or JSON it cannot join, is never overwritten (logged once per key);
   * {@code null} when the value is not JSON at all, which the caller may replace.
   */
  static <R> Decision<R> refusal(
      String etcdKey, byte[] stored, InvalidEventException e, MirrorWarnings warnings) {
    if (e instanceof UnknownVersionException newer) {
      warnings.newerSchema(etcdKey, newer);
      return refuseNewerSchema();
    }
    if (JsonCodec.isJson(stored)) {
      warnings.unreadable(etcdKey, e.getMessage());
      return refuseUnreadable();
    }
    return null;
  }

  /** Whether there is something to write. */
  boolean writes() {
    return value != null;
  }
}
