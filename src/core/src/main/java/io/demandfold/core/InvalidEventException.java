package io.demandfold.core;

/**
 * An event or stored record that cannot be folded, with a machine-readable {@link Reason} and a
 * precise message naming the field and the value.
 *
 * <p>Bad input is expected in a stream (hostile or buggy producers), so these exceptions carry no
 * stack trace: building one costs no more than its message.
 */
public class InvalidEventException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Why a record was rejected; {@link #code()} is the label used in DLQ headers and metrics. */
  public enum Reason {
    /** Neither Avro single-object nor JSON, malformed JSON syntax, truncated Avro. */
    UNDECODABLE("undecodable"),
    /** Decodable, but a field has the wrong type, is missing, out of range or over a limit. */
    INVALID_FIELD("invalid_field"),
    /** The record's {@code v} is neither 0 nor 1. */
    UNKNOWN_VERSION("unknown_version"),
    /** Avro single-object encoding with a schema fingerprint this reader does not know. */
    UNKNOWN_SCHEMA("unknown_schema"),
    /** A Kafka record without a key. */
    NULL_KEY("null_key"),
    /** A Kafka record without a value (a tombstone). */
    NULL_VALUE("null_value"),
    /** A Kafka key that is not {@code <lowercase hex(target)>/<shard>}. */
    INVALID_KEY("invalid_key"),
    /** A well-formed key naming another target or shard than the value. */
    KEY_MISMATCH("key_mismatch"),
    /** A new shard for a task that holds {@code limits.keys.per.task} shards already. */
    TOO_MANY_KEYS("too_many_keys"),
    /** A new shard of a target that has {@code limits.shards.per.target} shards already. */
    TOO_MANY_SHARDS("too_many_shards");

    private final String code;

    Reason(String code) {
      this.code = code;
    }

    /** The stable lower-case label of this reason. */
    public String code() {
      return code;
    }
  }

  private final Reason reason;

  public InvalidEventException(Reason reason, String message) {
    super(message, null, false, false);
    this.reason = reason;
  }

  public InvalidEventException(Reason reason, String message, Throwable cause) {
    super(message, cause, false, false);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }

  static InvalidEventException field(String message) {
    return new InvalidEventException(Reason.INVALID_FIELD, message);
  }
}
