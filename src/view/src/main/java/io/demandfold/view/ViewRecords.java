package io.demandfold.view;

import io.demandfold.core.InvalidEventException;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.ShardView;
import io.demandfold.core.TableView;
import io.demandfold.core.UnknownVersionException;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.core.codec.TableJson;
import io.demandfold.mirror.EtcdLayout;
import java.util.Set;

/**
 * What a key under the prefix is to the view and what its value says, read with the project's
 * codecs: a table record ({@code <prefix>/demand/<hex>}), a shard record of a held target ({@code
 * <prefix>/demand-events/<hex>/<shard>}), or nothing the view keeps. A value of a newer schema or
 * one that does not decode is a {@link Refusal}, never a record without demand.
 */
final class ViewRecords {
  /** Why a record is not read; {@link #newerSchema} tells the two kinds apart (metrics). */
  record Refusal(boolean newerSchema, String reason) {}

  /** A decoded table value: its view, or a refusal. */
  record TableValue(TableView view, Refusal refusal) {}

  /** A decoded shard value. */
  record ShardValue(ShardRecord record, Refusal refusal) {}

  /** A key the view keeps: a table of {@code target}, or a shard of it ({@code shard} non-null). */
  record Kept(String target, String shard) {}

  private final String tables;
  private final String shards;
  private final Set<String> held;

  ViewRecords(EtcdLayout layout, Set<String> heldTargets) {
    this.tables = layout.tableRecordsPrefix();
    this.shards = layout.shardRecordsPrefix();
    this.held = Set.copyOf(heldTargets);
  }

  /**
   * What {@code key} is: a table or held shard ({@link Kept}), a {@link Refusal} for a key under
   * {@code <prefix>/demand/} that names no target, or {@code null} for a key the view ignores.
   */
  Object classify(String key) {
    if (key.startsWith(tables)) {
      String hex = key.substring(tables.length());
      try {
        return new Kept(Keys.unhex(hex), null);
      } catch (IllegalArgumentException e) {
        return new Refusal(
            false, "the key is not <prefix>/demand/<hex(target)>: " + e.getMessage());
      }
    }
    if (!held.isEmpty() && key.startsWith(shards)) {
      try {
        Keys.ShardKey k = Keys.parse(key.substring(shards.length()));
        return held.contains(k.target()) ? new Kept(k.target(), k.shard()) : null;
      } catch (IllegalArgumentException e) {
        return null; // not a shard key of any target, so not of a held one
      }
    }
    return null;
  }

  static TableValue table(byte[] value) {
    try {
      return new TableValue(TableJson.decodeView(value), null);
    } catch (UnknownVersionException e) {
      return new TableValue(null, new Refusal(true, "newer schema: " + e.getMessage()));
    } catch (InvalidEventException e) {
      return new TableValue(null, new Refusal(false, "unreadable table record: " + e.getMessage()));
    } catch (RuntimeException e) {
      // foreign bytes: whatever else goes wrong, the record is not read, never read as empty
      return new TableValue(null, new Refusal(false, "unreadable table record: " + e));
    }
  }

  static ShardValue shard(String shard, byte[] value) {
    try {
      ShardRecord r = JsonCodec.decodeRecord(value);
      if (!r.shard().equals(shard)) {
        return new ShardValue(
            null,
            new Refusal(
                false,
                "unreadable shard record: it is of shard '"
                    + Keys.abbreviate(r.shard())
                    + "', not of its key's"));
      }
      return new ShardValue(r, null);
    } catch (UnknownVersionException e) {
      return new ShardValue(null, new Refusal(true, "newer schema: " + e.getMessage()));
    } catch (InvalidEventException e) {
      return new ShardValue(null, new Refusal(false, "unreadable shard record: " + e.getMessage()));
    } catch (RuntimeException e) {
      return new ShardValue(null, new Refusal(false, "unreadable shard record: " + e));
    }
  }

  static ShardDemand shardDemand(String target, String shard, long revision, byte[] value) {
    ShardValue v = shard(shard, value);
    return v.refusal() == null
        ? new ShardDemand(target, shard, revision, v.record(), ShardView.of(v.record()), null)
        : new ShardDemand(target, shard, revision, null, null, v.refusal().reason());
  }
}
