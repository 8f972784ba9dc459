package io.demandfold.mirror;

import io.demandfold.core.InvalidEventException;
import io.demandfold.core.Join;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.JsonCodec;

/**
 * Decides what the mirror writes to a shard key: the join (docs/model.md section 4) of the folded
 * record into what is stored. A join that changes nothing writes nothing; a stored record of an
 * unknown version, JSON this reader cannot join, or another shard's record is never overwritten; a
 * value that is not JSON is replaced. Needs no etcd: a function of the stored bytes and the folded
 * record (besides the warnings it logs).
 */
final class ShardJoiner {
  private final MirrorWarnings warnings;

  ShardJoiner(MirrorWarnings warnings) {
    this.warnings = warnings;
  }

  /**
   * What to write to {@code etcdKey}, which holds {@code current} ({@code null}: absent).
   *
   * @param json the canonical JSON of {@code folded} when the caller made it, else {@code null}:
   *     written as it is when the join is the folded record
   */
  Decision<ShardRecord> decide(
      String etcdKey, KnownValues.Value current, ShardRecord folded, byte[] json) {
    ShardRecord ours = Join.join(null, folded);
    if (current == null) {
      return Decision.write(encoded(ours, folded, json), ours, false);
    }
    ShardRecord stored;
    try {
      stored =
          current.record() instanceof ShardRecord r ? r : JsonCodec.decodeRecord(current.value());
    } catch (InvalidEventException e) {
      Decision<ShardRecord> refusal = Decision.refusal(etcdKey, current.value(), e, warnings);
      if (refusal != null) {
        return refusal;
      }
      warnings.replacingShardValue(etcdKey, e);
      return Decision.write(encoded(ours, folded, json), null, true);
    }
    if (!stored.shard().equals(ours.shard())) {
      warnings.unreadable(etcdKey, "it names shard '" + Keys.abbreviate(stored.shard()) + "'");
      return Decision.refuseUnreadable();
    }
    ShardRecord joined = Join.join(stored, ours);
    if (joined == stored) {
      return Decision.unchanged(stored);
    }
    return joined.equals(ours)
        ? Decision.write(encoded(ours, folded, json), ours, false)
        : Decision.write(JsonCodec.encodeRecord(joined), joined, false);
  }

  /** The JSON of {@code ours}: {@code json} when it is that of {@code folded}, the same record. */
  private static byte[] encoded(ShardRecord ours, ShardRecord folded, byte[] json) {
    return json != null && ours == folded ? json : JsonCodec.encodeRecord(ours);
  }
}
