package io.demandfold.mirror;

import io.demandfold.core.InvalidEventException;
import io.demandfold.core.Join;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;
import io.demandfold.core.UnknownVersionException;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.core.codec.TableJson;
import io.demandfold.mirror.MirrorMetrics.Kind;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mirrors folded records into etcd with a per-key read-join-compare-and-swap:
 *
 * <ol>
 *   <li>read the key;
 *   <li>join the folded record into what is stored (spec section 4): a join that changes nothing
 *       writes nothing; a stored record of an unknown version is never overwritten; an unreadable
 *       one is replaced;
 *   <li>write with a transaction comparing the mod_revision that was read (version 0 to create),
 *       whose else-branch reads the key again, so that a lost race costs one round trip;
 *   <li>retry a lost race a bounded number of times, then give up with {@link MirrorResult#FAILED}.
 * </ol>
 *
 * <p>Every request is bounded by a timeout. Calls are asynchronous and thread-safe; the caller
 * bounds how many are in flight. Completion callbacks run on jetcd's threads.
 */
public final class EtcdMirror {
  private static final Logger log = LoggerFactory.getLogger(EtcdMirror.class);
  private static final int MAX_REFUSED_LOGGED = 10_000;

  private final KV kv;
  private final EtcdLayout layout;
  private final int maxRetries;
  private final long timeoutMs;
  private final int maxRequestBytes;
  private final MirrorMetrics metrics;
  private final Set<String> refusedLogged = ConcurrentHashMap.newKeySet();
  private final KnownValues known;

  /**
   * @param kv the etcd KV client
   * @param layout where records live
   * @param maxRetries lost CAS races retried per call before giving up
   * @param timeout bound on each etcd request
   * @param maxRequestBytes the etcd request limit; larger table records are written compact
   * @param metrics where outcomes are counted
   */
  public EtcdMirror(
      KV kv,
      EtcdLayout layout,
      int maxRetries,
      Duration timeout,
      int maxRequestBytes,
      MirrorMetrics metrics) {
    this(kv, layout, maxRetries, timeout, maxRequestBytes, metrics, 0);
  }

  /**
   * A mirror that remembers the last value and mod_revision it saw of up to {@code cachedKeys}
   * keys: a join that changes nothing then sends no request, and a write is one compare-and-swap
   * instead of a read and a compare-and-swap. A stale entry costs one lost race, whose else-branch
   * refreshes it.
   */
  public EtcdMirror(
      KV kv,
      EtcdLayout layout,
      int maxRetries,
      Duration timeout,
      int maxRequestBytes,
      MirrorMetrics metrics,
      int cachedKeys) {
    this.kv = kv;
    this.layout = layout;
    this.maxRetries = maxRetries;
    this.timeoutMs = timeout.toMillis();
    this.maxRequestBytes = maxRequestBytes;
    this.metrics = metrics;
    this.known = new KnownValues(cachedKeys);
  }

  public EtcdLayout layout() {
    return layout;
  }

  /**
   * Joins {@code folded} into {@code <prefix>/demand-events/<shardKey>}.
   *
   * @param shardKey {@code <hex>/<shard>}
   */
  public CompletableFuture<MirrorOutcome> mirrorShard(String shardKey, ShardRecord folded) {
    String key = layout.shardKey(shardKey);
    return run(Kind.SHARD, key, current -> joinShard(key, current, folded));
  }

  /** Joins {@code ours} into {@code <prefix>/demand/<hex>}. */
  public CompletableFuture<MirrorOutcome> mirrorTable(String hex, TableRecord ours) {
    String key = layout.tableKey(hex);
    return run(Kind.TABLE, key, current -> joinTable(key, current, ours));
  }

  /**
   * What {@link #mirrorShard} would do if etcd held {@code current} ({@code null}: absent), without
   * writing: {@link MirrorResult#WRITTEN} when it would write.
   */
  public MirrorResult previewShard(String shardKey, ShardRecord folded, byte[] current) {
    return joinShard(layout.shardKey(shardKey), KnownValues.Value.read(current), folded).result;
  }

  /** What {@link #mirrorTable} would do if etcd held {@code current}, without writing. */
  public MirrorResult previewTable(String hex, TableRecord ours, byte[] current) {
    return joinTable(layout.tableKey(hex), KnownValues.Value.read(current), ours).result;
  }

  /**
   * The value a table record is written as under {@code etcdKey}: compact when the full form would
   * exceed the request limit; {@code null} when even that would.
   */
  public static byte[] tableValue(String etcdKey, TableRecord r, int maxRequestBytes) {
    return TableJson.encode(r, maxRequestBytes - etcdKey.length() - 64);
  }

  /** The value a table record is written as into an empty key of this mirror. */
  public byte[] tableValue(String hex, TableRecord r) {
    return tableValue(layout.tableKey(hex), r, maxRequestBytes);
  }

  private Decision joinShard(String key, KnownValues.Value current, ShardRecord folded) {
    ShardRecord ours = Join.join(null, folded);
    if (current == null) {
      return Decision.write(JsonCodec.encodeRecord(ours), ours, false);
    }
    ShardRecord stored;
    try {
      stored =
          current.record() instanceof ShardRecord r ? r : JsonCodec.decodeRecord(current.value());
    } catch (UnknownVersionException e) {
      return refuse(key, e);
    } catch (InvalidEventException e) {
      return replaceInvalid(key, e, JsonCodec.encodeRecord(ours));
    }
    if (!stored.shard().equals(ours.shard())) {
      return replaceInvalid(
          key,
          new IllegalStateException("stored record names shard '" + stored.shard() + "'"),
          JsonCodec.encodeRecord(ours));
    }
    ShardRecord joined = Join.join(stored, ours);
    return joined == stored
        ? Decision.unchanged(stored)
        : Decision.write(JsonCodec.encodeRecord(joined), joined, false);
  }

  private Decision joinTable(String key, KnownValues.Value current, TableRecord ours) {
    TableRecord joined = ours;
    boolean replaced = false;
    if (current != null) {
      try {
        TableRecord stored =
            current.record() instanceof TableRecord r ? r : TableJson.decode(current.value());
        joined = stored.join(ours);
        if (joined == stored && current.ours()) {
          return Decision.unchanged(stored);
        }
      } catch (UnknownVersionException e) {
        return refuse(key, e);
      } catch (InvalidEventException e) {
        log.warn("replacing unreadable table record at {}: {}", key, e.getMessage());
        replaced = true;
      }
    }
    byte[] bytes = tableValue(key, joined, maxRequestBytes);
    if (bytes == null) {
      log.warn("table record for {} exceeds etcd's request limit even compact; not written", key);
      return Decision.TOO_LARGE;
    }
    if (current != null && Arrays.equals(bytes, current.value())) {
      return Decision.unchanged(joined);
    }
    return Decision.write(bytes, joined, replaced);
  }

  private Decision refuse(String key, UnknownVersionException e) {
    if (refusedLogged.size() < MAX_REFUSED_LOGGED && refusedLogged.add(key)) {
      log.warn(
          "not overwriting {}: it holds a record of schema version {} (newer than this reader)",
          key,
          e.version());
    }
    return Decision.REFUSE;
  }

  private static Decision replaceInvalid(String key, Exception e, byte[] ours) {
    log.warn("replacing unreadable record at {}: {}", key, e.getMessage());
    return Decision.write(ours, null, true);
  }

  private CompletableFuture<MirrorOutcome> run(Kind kind, String key, Joiner joiner) {
    ByteSequence k = ByteSequence.from(key, StandardCharsets.UTF_8);
    KnownValues.Value cached = known.get(key);
    CompletableFuture<MirrorOutcome> f;
    if (cached != null) {
      f = attempt(key, k, joiner, cached, 0);
    } else {
      metrics.get();
      f = bounded(kv.get(k)).thenCompose(r -> attempt(key, k, joiner, observed(key, first(r)), 0));
    }
    return f.handle(
        (o, e) -> {
          MirrorOutcome out = e == null ? o : MirrorOutcome.failed(unwrap(e), 0);
          if (out.result() == MirrorResult.FAILED) {
            known.forget(key);
          }
          metrics.record(kind, out);
          return out;
        });
  }

  /** Remembers what a read returned; {@code null} for an absent key. */
  private KnownValues.Value observed(String key, KeyValue kv) {
    if (kv == null) {
      known.forget(key);
      return null;
    }
    KnownValues.Value v =
        new KnownValues.Value(kv.getModRevision(), kv.getValue().getBytes(), null, false);
    known.put(key, v);
    return v;
  }

  private CompletableFuture<MirrorOutcome> attempt(
      String key, ByteSequence k, Joiner joiner, KnownValues.Value current, int retries) {
    Decision d = joiner.decide(current);
    if (d.result == MirrorResult.UNCHANGED
        && current != null
        && current.record() == null
        && d.record != null) {
      known.put(key, current.withRecord(d.record));
    }
    if (d.result != MirrorResult.WRITTEN) {
      return CompletableFuture.completedFuture(MirrorOutcome.of(d.result, retries, false));
    }
    Cmp cmp =
        current == null
            ? new Cmp(k, Cmp.Op.EQUAL, CmpTarget.version(0))
            : new Cmp(k, Cmp.Op.EQUAL, CmpTarget.modRevision(current.modRevision()));
    metrics.txn();
    return bounded(
            kv.txn()
                .If(cmp)
                .Then(Op.put(k, ByteSequence.from(d.value), PutOption.DEFAULT))
                .Else(Op.get(k, GetOption.DEFAULT))
                .commit())
        .thenCompose(
            resp -> {
              if (resp.isSucceeded()) {
                known.put(
                    key,
                    new KnownValues.Value(resp.getHeader().getRevision(), d.value, d.record, true));
                return CompletableFuture.completedFuture(
                    MirrorOutcome.of(MirrorResult.WRITTEN, retries, d.replacedInvalid));
              }
              KeyValue now =
                  resp.getGetResponses().isEmpty() ? null : first(resp.getGetResponses().get(0));
              KnownValues.Value seen = observed(key, now);
              if (retries >= maxRetries) {
                return CompletableFuture.completedFuture(
                    MirrorOutcome.failed(
                        new IllegalStateException(
                            "lost the compare-and-swap race " + (retries + 1) + " times"),
                        retries));
              }
              return attempt(key, k, joiner, seen, retries + 1);
            });
  }

  private <T> CompletableFuture<T> bounded(CompletableFuture<T> f) {
    return f.orTimeout(timeoutMs, TimeUnit.MILLISECONDS);
  }

  private static KeyValue first(GetResponse r) {
    return r.getKvs().isEmpty() ? null : r.getKvs().get(0);
  }

  private static Throwable unwrap(Throwable e) {
    while ((e instanceof java.util.concurrent.CompletionException
            || e instanceof java.util.concurrent.ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /** Decides what to write given the stored bytes ({@code null} when the key is absent). */
  @FunctionalInterface
  private interface Joiner {
    Decision decide(KnownValues.Value current);
  }

  /** What to do with a key: the bytes to write and the record they encode, or why not. */
  private static final class Decision {
    static final Decision REFUSE =
        new Decision(MirrorResult.REFUSED_NEWER_SCHEMA, null, null, false);
    static final Decision TOO_LARGE = new Decision(MirrorResult.TOO_LARGE, null, null, false);

    final MirrorResult result;
    final byte[] value;
    final Object record;
    final boolean replacedInvalid;

    private Decision(MirrorResult result, byte[] value, Object record, boolean replacedInvalid) {
      this.result = result;
      this.value = value;
      this.record = record;
      this.replacedInvalid = replacedInvalid;
    }

    static Decision write(byte[] value, Object record, boolean replacedInvalid) {
      return new Decision(MirrorResult.WRITTEN, value, record, replacedInvalid);
    }

    /** Nothing to write; {@code stored} is the decoded current value, worth remembering. */
    static Decision unchanged(Object stored) {
      return new Decision(MirrorResult.UNCHANGED, null, stored, false);
    }
  }
}
