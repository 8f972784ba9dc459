package io.demandfold.ops;

import io.demandfold.core.Fold;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.MirrorOutcome;
import io.demandfold.mirror.MirrorPreview;
import io.demandfold.mirror.MirrorResult;
import io.etcd.jetcd.KV;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Writes a fold into etcd through the mirror's read-join-CAS, so that it never lowers a record and
 * never overwrites one of a newer schema; or, dry, tells what it would write. Shard records go in
 * batches ({@link EtcdMirror#mirrorShards}: one read and one compare-and-swap per batch), table
 * records one by one.
 */
public final class Rebuild {
  private Rebuild() {}

  /** How many keys ended with each result. */
  public record Summary(Map<MirrorResult, Long> results) {
    public long count(MirrorResult r) {
      return results.getOrDefault(r, 0L);
    }
  }

  /**
   * Mirrors every shard record (and table record when {@code tables}) of {@code fold}, with at most
   * {@code concurrency} requests in flight, shard records {@code batchKeys} to a request; a key
   * that fails is tried again on its own up to {@code attempts} times in all.
   */
  public static Summary run(
      Fold fold, EtcdMirror mirror, boolean tables, int concurrency, int batchKeys, int attempts)
      throws InterruptedException {
    Map<MirrorResult, Long> results = new EnumMap<>(MirrorResult.class);
    write(fold, mirror, tables, new Semaphore(concurrency), batchKeys, attempts, results);
    return new Summary(results);
  }

  /** {@link #run} of the fold of every bucket of {@code spill}, one bucket after the other. */
  public static Summary run(
      Spill spill, EtcdMirror mirror, boolean tables, int concurrency, int batchKeys, int attempts)
      throws Exception {
    Map<MirrorResult, Long> results = new EnumMap<>(MirrorResult.class);
    Semaphore slots = new Semaphore(concurrency);
    spill.forEachBucket(b -> write(b, mirror, tables, slots, batchKeys, attempts, results));
    return new Summary(results);
  }

  private static void write(
      Fold fold,
      EtcdMirror mirror,
      boolean tables,
      Semaphore slots,
      int batchKeys,
      int attempts,
      Map<MirrorResult, Long> results)
      throws InterruptedException {
    List<CompletableFuture<Void>> pending = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    List<ShardRecord> records = new ArrayList<>();
    for (var t : fold.targets().entrySet()) {
      for (ShardRecord r : t.getValue().values()) {
        keys.add(Keys.shardKey(t.getKey(), r.shard()));
        records.add(r);
        if (keys.size() == batchKeys) {
          batch(mirror, keys, records, slots, attempts, results, pending);
          keys = new ArrayList<>();
          records = new ArrayList<>();
        }
      }
      if (tables) {
        TableRecord table = TableRecord.of(t.getValue().values());
        String hex = Keys.hex(t.getKey());
        slots.acquire();
        pending.add(count(attempt(() -> mirror.mirrorTable(hex, table), attempts), results, slots));
      }
    }
    if (!keys.isEmpty()) {
      batch(mirror, keys, records, slots, attempts, results, pending);
    }
    CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
  }

  private static void batch(
      EtcdMirror mirror,
      List<String> keys,
      List<ShardRecord> records,
      Semaphore slots,
      int attempts,
      Map<MirrorResult, Long> results,
      List<CompletableFuture<Void>> pending)
      throws InterruptedException {
    slots.acquire();
    List<CompletableFuture<MirrorOutcome>> outcomes = mirror.mirrorShards(keys, records);
    List<CompletableFuture<Void>> counted = new ArrayList<>(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      String key = keys.get(i);
      ShardRecord r = records.get(i);
      CompletableFuture<MirrorOutcome> o =
          outcomes
              .get(i)
              .thenCompose(
                  first ->
                      first.result().done() || attempts <= 1
                          ? CompletableFuture.completedFuture(first)
                          : attempt(() -> mirror.mirrorShard(key, r), attempts - 1));
      counted.add(count(o, results, null));
    }
    CompletableFuture<Void> all =
        CompletableFuture.allOf(counted.toArray(CompletableFuture[]::new));
    pending.add(all.whenComplete((v, e) -> slots.release()));
  }

  private static CompletableFuture<Void> count(
      CompletableFuture<MirrorOutcome> outcome, Map<MirrorResult, Long> results, Semaphore slots) {
    CompletableFuture<Void> counted =
        outcome.thenAccept(
            o -> {
              synchronized (results) {
                results.merge(o.result(), 1L, Long::sum);
              }
            });
    return slots == null ? counted : counted.whenComplete((v, e) -> slots.release());
  }

  private static CompletableFuture<MirrorOutcome> attempt(
      Supplier<CompletableFuture<MirrorOutcome>> call, int attemptsLeft) {
    return call.get()
        .thenCompose(
            o ->
                o.result().done() || attemptsLeft <= 1
                    ? CompletableFuture.completedFuture(o)
                    : attempt(call, attemptsLeft - 1));
  }

  /**
   * What {@link #run} would do against {@code snapshot}, without writing: how many keys it would
   * write, leave unchanged, refuse.
   */
  public static Summary dryRun(
      Fold fold, MirrorPreview preview, boolean tables, EtcdSnapshot snapshot) {
    Map<MirrorResult, Long> results = new EnumMap<>(MirrorResult.class);
    preview(fold, preview, tables, snapshot.values()::get, snapshot.values()::get, results);
    return new Summary(results);
  }

  /**
   * {@link #dryRun} of the buckets of {@code spill} against etcd read in pages at one revision, a
   * merge-walk of the shard and the table prefix.
   */
  public static Summary dryRun(
      Spill spill, MirrorPreview preview, boolean tables, KV kv, long timeoutMs) throws Exception {
    Map<MirrorResult, Long> results = new EnumMap<>(MirrorResult.class);
    EtcdWalk.Passed skip = (k, v) -> {};
    EtcdWalk shards = new EtcdWalk(kv, preview.layout().shardRecordsPrefix(), 0, timeoutMs);
    EtcdWalk tableWalk =
        new EtcdWalk(kv, preview.layout().tableRecordsPrefix(), shards.revision(), timeoutMs);
    spill.forEachBucket(
        b ->
            preview(
                b,
                preview,
                tables,
                k -> seek(shards, k, skip),
                k -> seek(tableWalk, k, skip),
                results));
    return new Summary(results);
  }

  private static byte[] seek(EtcdWalk walk, String key, EtcdWalk.Passed skip) {
    try {
      return walk.seek(key, skip);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted reading etcd", e);
    } catch (Exception e) {
      throw new IllegalStateException("reading etcd failed: " + e.getMessage(), e);
    }
  }

  private static void preview(
      Fold fold,
      MirrorPreview preview,
      boolean tables,
      Function<String, byte[]> shardValue,
      Function<String, byte[]> tableValue,
      Map<MirrorResult, Long> results) {
    for (var t : fold.targets().entrySet()) {
      for (ShardRecord r : t.getValue().values()) {
        String key = Keys.shardKey(t.getKey(), r.shard());
        byte[] current = shardValue.apply(preview.layout().shardKey(key));
        results.merge(preview.shard(key, r, current), 1L, Long::sum);
      }
      if (tables) {
        String hex = Keys.hex(t.getKey());
        byte[] current = tableValue.apply(preview.layout().tableKey(hex));
        results.merge(
            preview.table(hex, TableRecord.of(t.getValue().values()), current), 1L, Long::sum);
      }
    }
  }
}
