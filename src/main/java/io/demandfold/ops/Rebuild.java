package io.demandfold.ops;

import io.demandfold.core.Fold;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.MirrorOutcome;
import io.demandfold.mirror.MirrorPreview;
import io.demandfold.mirror.MirrorResult;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

/**
 * Writes a fold into etcd through the mirror's read-join-CAS, so that it never lowers a record and
 * never overwrites one of a newer schema; or, dry, tells what it would write.
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
   * {@code concurrency} keys in flight; a key that fails is tried again up to {@code attempts}
   * times.
   */
  public static Summary run(
      Fold fold, EtcdMirror mirror, boolean tables, int concurrency, int attempts)
      throws InterruptedException {
    List<Supplier<CompletableFuture<MirrorOutcome>>> calls = new ArrayList<>();
    for (var t : fold.targets().entrySet()) {
      for (ShardRecord r : t.getValue().values()) {
        String key = Keys.shardKey(t.getKey(), r.shard());
        calls.add(() -> mirror.mirrorShard(key, r));
      }
      if (tables) {
        TableRecord table = TableRecord.of(t.getValue().values());
        String hex = Keys.hex(t.getKey());
        calls.add(() -> mirror.mirrorTable(hex, table));
      }
    }
    Map<MirrorResult, Long> results = new EnumMap<>(MirrorResult.class);
    Semaphore slots = new Semaphore(concurrency);
    List<CompletableFuture<Void>> pending = new ArrayList<>();
    for (Supplier<CompletableFuture<MirrorOutcome>> call : calls) {
      slots.acquire();
      pending.add(
          attempt(call, attempts)
              .thenAccept(
                  o -> {
                    synchronized (results) {
                      results.merge(o.result(), 1L, Long::sum);
                    }
                  })
              .whenComplete((v, e) -> slots.release()));
    }
    CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
    return new Summary(results);
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
    for (var t : fold.targets().entrySet()) {
      for (ShardRecord r : t.getValue().values()) {
        String key = Keys.shardKey(t.getKey(), r.shard());
        byte[] current = snapshot.values().get(preview.layout().shardKey(key));
        results.merge(preview.shard(key, r, current), 1L, Long::sum);
      }
      if (tables) {
        String hex = Keys.hex(t.getKey());
        byte[] current = snapshot.values().get(preview.layout().tableKey(hex));
        results.merge(
            preview.table(hex, TableRecord.of(t.getValue().values()), current), 1L, Long::sum);
      }
    }
    return new Summary(results);
  }
}
