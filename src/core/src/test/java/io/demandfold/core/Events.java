package io.demandfold.core;

/** Terse event builders for tests. */
public final class Events {
  private Events() {}

  public static ShardRecord writer(String shard, long sealed, long epoch, long flushedAt) {
    return ShardRecord.builder(shard)
        .sealedThrough(sealed)
        .writerEpoch(epoch)
        .flushedAtMs(flushedAt)
        .source(Source.WRITER)
        .build();
  }

  public static ShardRecord writer(
      String shard, long sealed, long merged, long epoch, long flushedAt) {
    return writer(shard, sealed, epoch, flushedAt).toBuilder().mergedThrough(merged).build();
  }

  public static ShardRecord executor(
      String shard, long sealed, long merged, long epoch, long observedAt) {
    return ShardRecord.builder(shard)
        .sealedThrough(sealed)
        .mergedThrough(merged)
        .writerEpoch(epoch)
        .flushedAtMs(observedAt)
        .source(Source.EXECUTOR)
        .build();
  }

  public static ShardRecord scan(String shard, long sealed, long merged, long epoch, long at) {
    return ShardRecord.builder(shard)
        .sealedThrough(sealed)
        .mergedThrough(merged)
        .writerEpoch(epoch)
        .flushedAtMs(at)
        .source(Source.SCAN)
        .build();
  }

  /** Folds records of one shard in order. */
  public static ShardRecord fold(ShardRecord... events) {
    ShardRecord stored = null;
    for (ShardRecord e : events) {
      stored = Join.join(stored, e);
    }
    return stored;
  }
}
