package io.demandfold.view;

import io.demandfold.core.ShardRecord;
import io.demandfold.core.ShardView;
import java.util.Objects;

/**
 * One shard record of a target as the {@link DemandView} read it from {@code
 * <prefix>/demand-events/<hex>/<shard>}: its folded record and derived view (docs/model.md section
 * 6), or, for a record this reader does not read (a newer schema, unreadable JSON), why: such a
 * shard is never shown as one without demand.
 *
 * @param target the target
 * @param shard the shard id
 * @param revision the etcd mod revision of the record
 * @param record the stored record, {@code null} when refused
 * @param view its view, {@code null} when refused
 * @param refused why the record is not read, {@code null} when it is
 */
public record ShardDemand(
    String target,
    String shard,
    long revision,
    ShardRecord record,
    ShardView view,
    String refused) {
  public ShardDemand {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(shard, "shard");
    if ((record == null) != (refused != null) || (record == null) != (view == null)) {
      throw new IllegalArgumentException("a shard has a record and its view, or a refusal");
    }
  }
}
