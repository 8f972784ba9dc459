package io.demandfold.mirror;

import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;

/**
 * What an {@link EtcdMirror} would do to keys holding given values, decided as it decides, without
 * etcd and without writing: the dry run of {@code rebuild}. A refusal is logged as the mirror logs
 * it.
 */
public final class MirrorPreview {
  private final EtcdLayout layout;
  private final ShardJoiner shards;
  private final TableJoiner tables;

  MirrorPreview(EtcdLayout layout, ShardJoiner shards, TableJoiner tables) {
    this.layout = layout;
    this.shards = shards;
    this.tables = tables;
  }

  /** Where the previewed mirror keeps its records. */
  public EtcdLayout layout() {
    return layout;
  }

  /**
   * What {@link EtcdMirror#mirrorShard} would do if etcd held {@code current} ({@code null}:
   * absent): {@link MirrorResult#WRITTEN} when it would write.
   */
  public MirrorResult shard(String shardKey, ShardRecord folded, byte[] current) {
    return shards
        .decide(layout.shardKey(shardKey), KnownValues.Value.read(current), folded, null)
        .result();
  }

  /** What {@link EtcdMirror#mirrorTable} would do if etcd held {@code current}. */
  public MirrorResult table(String hex, TableRecord ours, byte[] current) {
    return tables.decide(layout.tableKey(hex), KnownValues.Value.read(current), ours).result();
  }
}
