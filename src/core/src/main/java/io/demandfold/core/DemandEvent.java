package io.demandfold.core;

import java.util.Objects;

/**
 * An event as it travels on Kafka: the per-shard record plus the {@code target} (table) it belongs
 * to. Its Kafka key is {@link #key()}.
 *
 * @param target the table name, 1..{@link Limits#MAX_TARGET_BYTES} UTF-8 bytes
 * @param record the watermarks of one shard of that table
 */
public record DemandEvent(String target, ShardRecord record) {
  /**
   * @throws InvalidEventException when the target is missing, empty or too long
   */
  public DemandEvent {
    checkTarget(target);
    Objects.requireNonNull(record, "record");
  }

  /** The Kafka key and etcd key suffix {@code <hex(target)>/<shard>}. */
  public String key() {
    return Keys.shardKey(target, record.shard());
  }

  /**
   * Validates a target name: Unicode text (no lone surrogate) of 1..{@link Limits#MAX_TARGET_BYTES}
   * UTF-8 bytes.
   */
  public static void checkTarget(String target) {
    if (target == null) {
      throw InvalidEventException.field("missing required field 'target'");
    }
    if (target.isEmpty()) {
      throw InvalidEventException.field("field 'target' is empty");
    }
    int bytes = ShardRecord.checkedUtf8Length("target", target);
    if (bytes > Limits.MAX_TARGET_BYTES) {
      throw InvalidEventException.field(
          "field 'target' is " + bytes + " bytes; at most " + Limits.MAX_TARGET_BYTES);
    }
  }
}
