package io.demandfold.mirror;

import io.demandfold.core.InvalidEventException;
import io.demandfold.core.Join;
import io.demandfold.core.Keys;
import io.demandfold.core.Printable;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;
import io.demandfold.core.TableView;
import io.demandfold.core.UnknownVersionException;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.core.codec.TableJson;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
 *       writes nothing; a stored record of an unknown version, or JSON this reader cannot join, is
 *       never overwritten; a value that is not JSON is replaced;
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

  /** Room for the protobuf tags, lengths and revision fields of a transaction around its keys. */
  static final int REQUEST_FRAMING_BYTES = 512;

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
   * A mirror that remembers the last value and mod_revision it saw of keys, up to {@code
   * cacheBytes} of them: a join that changes nothing then sends no request, and a write is one
   * compare-and-swap instead of a read and a compare-and-swap. A stale entry costs one lost race,
   * whose else-branch refreshes it.
   */
  public EtcdMirror(
      KV kv,
      EtcdLayout layout,
      int maxRetries,
      Duration timeout,
      int maxRequestBytes,
      MirrorMetrics metrics,
      long cacheBytes) {
    this.kv = kv;
    this.layout = layout;
    this.maxRetries = maxRetries;
    this.timeoutMs = timeout.toMillis();
    this.maxRequestBytes = maxRequestBytes;
    this.metrics = metrics;
    this.known = new KnownValues(cacheBytes);
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
    return run(RecordKind.SHARD, key, current -> joinShard(key, current, folded, null));
  }

  /**
   * Joins each folded record into its key like {@link #mirrorShard}, with as few requests as etcd
   * allows: the keys the mirror does not know are read in one transaction, and every key whose join
   * changes something is written in one transaction that compares all their mod_revisions (split
   * where the values would exceed the request limit). When any compare fails, the else-branch reads
   * all of them back and each key goes on alone, as in {@link #mirrorShard}, its lost race counted.
   * Keys must be distinct, and at most etcd's {@code --max-txn-ops} (default 128).
   *
   * @param shardKeys {@code <hex>/<shard>} of each record
   * @param folded the records, in the order of {@code shardKeys}
   * @return one outcome per key, in the same order
   */
  public List<CompletableFuture<MirrorOutcome>> mirrorShards(
      List<String> shardKeys, List<ShardRecord> folded) {
    return mirrorShards(shardKeys, folded, java.util.Collections.nCopies(folded.size(), null));
  }

  /**
   * {@link #mirrorShards(List, List)} with each record's canonical JSON ({@link
   * JsonCodec#encodeRecord}) already made, or {@code null} where it is not: a key whose join is the
   * folded record itself is written as that JSON, not encoded again.
   */
  public List<CompletableFuture<MirrorOutcome>> mirrorShards(
      List<String> shardKeys, List<ShardRecord> folded, List<byte[]> json) {
    if (shardKeys.size() != folded.size() || folded.size() != json.size()) {
      throw new IllegalArgumentException(
          shardKeys.size()
              + " keys but "
              + folded.size()
              + " records and "
              + json.size()
              + " JSON");
    }
    List<Call> calls = new ArrayList<>(shardKeys.size());
    for (int i = 0; i < shardKeys.size(); i++) {
      String key = layout.shardKey(shardKeys.get(i));
      ShardRecord r = folded.get(i);
      byte[] j = json.get(i);
      calls.add(new Call(key, current -> joinShard(key, current, r, j)));
    }
    return execute(RecordKind.SHARD, calls);
  }

  /** Reads the unknown keys, decides every key, writes the changed ones; one outcome per call. */
  private List<CompletableFuture<MirrorOutcome>> execute(RecordKind kind, List<Call> calls) {
    readUnknown(calls)
        .whenComplete(
            (ok, e) -> {
              try {
                if (e != null) {
                  throw e;
                }
                writeBatched(calls);
              } catch (Throwable x) {
                calls.forEach(c -> c.outcome.completeExceptionally(x));
              }
            });
    List<CompletableFuture<MirrorOutcome>> outcomes = new ArrayList<>(calls.size());
    for (Call c : calls) {
      outcomes.add(finish(kind, c.key, c.outcome));
    }
    return outcomes;
  }

  /** Reads, in one transaction, the keys whose value the mirror does not know. */
  private CompletableFuture<Void> readUnknown(List<Call> calls) {
    List<Call> unknown = new ArrayList<>();
    for (Call c : calls) {
      c.current = known.get(c.key);
      if (c.current == null) {
        unknown.add(c);
      }
    }
    if (unknown.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    metrics.countGet();
    if (unknown.size() == 1) {
      Call c = unknown.get(0);
      return bounded(kv.get(c.k)).thenAccept(r -> c.current = observed(c.key, first(r)));
    }
    Op[] gets = unknown.stream().map(c -> Op.get(c.k, GetOption.DEFAULT)).toArray(Op[]::new);
    return bounded(kv.txn().Then(gets).commit())
        .thenAccept(
            r -> {
              List<GetResponse> got = r.getGetResponses();
              for (int i = 0; i < unknown.size(); i++) {
                Call c = unknown.get(i);
                c.current = observed(c.key, first(got.get(i)));
              }
            });
  }

  /** Decides every call, completes those with nothing to write, writes the rest in batches. */
  private void writeBatched(List<Call> calls) {
    List<Call> batch = new ArrayList<>();
    long bytes = 0;
    for (Call c : calls) {
      c.decision = decide(c.key, c.joiner, c.current);
      if (!c.decision.writes()) {
        c.outcome.complete(MirrorOutcome.of(c.decision.result, 0, false));
        continue;
      }
      // the key appears in the compare, the put and the else-branch read
      long size = 3L * c.k.size() + c.decision.value.length + 64;
      if (batch.isEmpty()) {
        size += REQUEST_FRAMING_BYTES;
      }
      if (!batch.isEmpty() && bytes + size > maxRequestBytes) {
        writeBatch(batch);
        batch = new ArrayList<>();
        bytes = 0;
      }
      batch.add(c);
      bytes += size;
    }
    if (!batch.isEmpty()) {
      writeBatch(batch);
    }
  }

  private void writeBatch(List<Call> batch) {
    if (batch.size() == 1) {
      Call c = batch.get(0);
      write(c.key, c.k, c.joiner, c.current, c.decision, 0).whenComplete(c::settle);
      return;
    }
    Cmp[] cmps = new Cmp[batch.size()];
    Op[] puts = new Op[batch.size()];
    Op[] gets = new Op[batch.size()];
    for (int i = 0; i < batch.size(); i++) {
      Call c = batch.get(i);
      cmps[i] = expected(c.k, c.current);
      puts[i] = Op.put(c.k, ByteSequence.from(c.decision.value), PutOption.DEFAULT);
      gets[i] = Op.get(c.k, GetOption.DEFAULT);
    }
    metrics.countTxn();
    bounded(kv.txn().If(cmps).Then(puts).Else(gets).commit())
        .whenComplete(
            (resp, e) -> {
              if (e != null) {
                batch.forEach(c -> c.outcome.completeExceptionally(e));
                return;
              }
              try {
                settleBatch(batch, resp);
              } catch (Throwable x) {
                batch.forEach(c -> c.outcome.completeExceptionally(x));
              }
            });
  }

  private void settleBatch(List<Call> batch, TxnResponse resp) {
    for (int i = 0; i < batch.size(); i++) {
      Call c = batch.get(i);
      if (resp.isSucceeded()) {
        remember(c.key, resp.getHeader().getRevision(), c.decision);
        c.outcome.complete(MirrorOutcome.of(c.decision.result, 0, c.decision.replacedInvalid));
      } else {
        KnownValues.Value seen = observed(c.key, first(resp.getGetResponses().get(i)));
        // only the keys whose compare failed lost a race; the rest just go on alone
        int lost = sameRevision(seen, c.current) ? 0 : 1;
        attempt(c.key, c.k, c.joiner, seen, lost).whenComplete(c::settle);
      }
    }
  }

  /** Joins {@code ours} into {@code <prefix>/demand/<hex>}. */
  public CompletableFuture<MirrorOutcome> mirrorTable(String hex, TableRecord ours) {
    String key = layout.tableKey(hex);
    return run(RecordKind.TABLE, key, current -> joinTable(key, current, ours));
  }

  /**
   * What {@link #mirrorShard} would do if etcd held {@code current} ({@code null}: absent), without
   * writing: {@link MirrorResult#WRITTEN} when it would write.
   */
  public MirrorResult previewShard(String shardKey, ShardRecord folded, byte[] current) {
    return joinShard(layout.shardKey(shardKey), KnownValues.Value.read(current), folded, null)
        .result;
  }

  /** What {@link #mirrorTable} would do if etcd held {@code current}, without writing. */
  public MirrorResult previewTable(String hex, TableRecord ours, byte[] current) {
    return joinTable(layout.tableKey(hex), KnownValues.Value.read(current), ours).result;
  }

  /**
   * The value a table record is written as under {@code etcdKey}: compact when the full form would
   * exceed the request limit, its derived fields alone when even that would.
   */
  public static byte[] tableValue(String etcdKey, TableRecord r, int maxRequestBytes) {
    return TableJson.encode(r, maxRequestBytes - requestOverhead(etcdKey));
  }

  /**
   * What a one-key compare-and-swap carries besides the value: the key in the compare, the put and
   * the else-branch read, and the protobuf framing of the transaction.
   */
  static int requestOverhead(String etcdKey) {
    return 3 * etcdKey.getBytes(StandardCharsets.UTF_8).length + REQUEST_FRAMING_BYTES;
  }

  /** The value a table record is written as into an empty key of this mirror. */
  public byte[] tableValue(String hex, TableRecord r) {
    return tableValue(layout.tableKey(hex), r, maxRequestBytes);
  }

  /**
   * What to do with a shard key holding {@code current}: {@code json}, when not {@code null}, is
   * the canonical JSON of {@code folded}, written as it is when the join is the folded record.
   */
  private Decision joinShard(
      String key, KnownValues.Value current, ShardRecord folded, byte[] json) {
    ShardRecord ours = Join.join(null, folded);
    if (current == null) {
      return Decision.write(encoded(ours, folded, json), ours, false);
    }
    ShardRecord stored;
    try {
      stored =
          current.record() instanceof ShardRecord r ? r : JsonCodec.decodeRecord(current.value());
    } catch (UnknownVersionException e) {
      return refuse(key, e);
    } catch (InvalidEventException e) {
      return JsonCodec.isJson(current.value())
          ? refuseUnreadable(key, e.getMessage())
          : replaceInvalid(key, e, encoded(ours, folded, json));
    }
    if (!stored.shard().equals(ours.shard())) {
      return refuseUnreadable(key, "it names shard '" + Keys.abbreviate(stored.shard()) + "'");
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
        if (JsonCodec.isJson(current.value())) {
          // other writers' shards are in it: never replace it by ours alone
          return refuseUnreadable(key, e.getMessage());
        }
        log.warn(
            "replacing a table record that is not JSON at {}: {}",
            Printable.escape(key),
            e.getMessage());
        replaced = true;
      }
    }
    byte[] bytes = tableValue(key, joined, maxRequestBytes);
    if (current != null && Arrays.equals(bytes, current.value())) {
      return Decision.unchanged(joined);
    }
    if (TableJson.isDerivedOnly(bytes)) {
      warnDerivedOnly(key, joined.shards().size());
      return Decision.writeDerivedOnly(bytes);
    }
    return Decision.write(bytes, joined, replaced);
  }

  /**
   * How many shards a table record may have and still fit a request compact. A target with more is
   * written with its derived fields only ({@link #mirrorTableView}).
   */
  public int tableEntriesThatMayFit() {
    return TableJson.entriesThatMayFit(maxRequestBytes);
  }

  /**
   * Writes the derived fields alone into {@code <prefix>/demand/<hex>}, for a target of {@code
   * view.shards()} shards whose entries would not fit a request even compact (the caller did not
   * build them): replaces what is stored unless it is of an unknown version or JSON this reader
   * cannot read; result {@link MirrorResult#TOO_LARGE}.
   */
  public CompletableFuture<MirrorOutcome> mirrorTableView(String hex, TableView view) {
    String key = layout.tableKey(hex);
    byte[] bytes = TableJson.derivedOnly(view);
    return run(
        RecordKind.TABLE,
        key,
        current -> {
          if (current != null) {
            if (Arrays.equals(bytes, current.value())) {
              return Decision.unchanged(null);
            }
            try {
              TableJson.decode(current.value());
            } catch (UnknownVersionException e) {
              return refuse(key, e);
            } catch (InvalidEventException e) {
              if (JsonCodec.isJson(current.value())) {
                return refuseUnreadable(key, e.getMessage());
              }
            }
          }
          warnDerivedOnly(key, view.shards());
          return Decision.writeDerivedOnly(bytes);
        });
  }

  private void warnDerivedOnly(String key, int shards) {
    if (refusedLogged.size() < MAX_REFUSED_LOGGED && refusedLogged.add(key)) {
      log.warn(
          "the table record of {} ({} shards) exceeds etcd.max.request.bytes even compact: it is"
              + " written with its derived fields only (derived_only), without per-shard entries",
          Printable.escape(key),
          shards);
    }
  }

  private Decision refuse(String key, UnknownVersionException e) {
    if (refusedLogged.size() < MAX_REFUSED_LOGGED && refusedLogged.add(key)) {
      log.warn(
          "not overwriting {}: it holds a record this reader does not know ({})",
          Printable.escape(key),
          e.getMessage());
    }
    return Decision.REFUSE;
  }

  /**
   * A stored value that is JSON but not a record this reader can join (a field out of range, an
   * unknown source, a repeated key, another shard's record): another writer's, or a schema this
   * reader does not know; never overwritten, counted, logged once per key.
   */
  private Decision refuseUnreadable(String key, String why) {
    if (refusedLogged.size() < MAX_REFUSED_LOGGED && refusedLogged.add(key)) {
      log.warn(
          "not overwriting {}: it holds JSON this reader cannot join ({})",
          Printable.escape(key),
          why);
    }
    return Decision.REFUSE_UNREADABLE;
  }

  private static Decision replaceInvalid(String key, Exception e, byte[] ours) {
    log.warn("replacing a value that is not JSON at {}: {}", Printable.escape(key), e.getMessage());
    return Decision.write(ours, null, true);
  }

  private CompletableFuture<MirrorOutcome> run(RecordKind kind, String key, Joiner joiner) {
    return execute(kind, List.of(new Call(key, joiner))).get(0);
  }

  /** Counts the outcome of one key; a failure makes the mirror forget what it knew of the key. */
  private CompletableFuture<MirrorOutcome> finish(
      RecordKind kind, String key, CompletableFuture<MirrorOutcome> f) {
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
    Decision d = decide(key, joiner, current);
    if (!d.writes()) {
      return CompletableFuture.completedFuture(MirrorOutcome.of(d.result, retries, false));
    }
    return write(key, k, joiner, current, d, retries);
  }

  /** The joiner's decision; an unchanged join remembers the decoded stored record. */
  private Decision decide(String key, Joiner joiner, KnownValues.Value current) {
    Decision d = joiner.decide(current);
    if (d.result == MirrorResult.UNCHANGED
        && current != null
        && current.record() == null
        && d.record != null) {
      known.put(key, current.withRecord(d.record));
    }
    return d;
  }

  private static boolean sameRevision(KnownValues.Value a, KnownValues.Value b) {
    return a == null ? b == null : b != null && a.modRevision() == b.modRevision();
  }

  private static Cmp expected(ByteSequence k, KnownValues.Value current) {
    return current == null
        ? new Cmp(k, Cmp.Op.EQUAL, CmpTarget.version(0))
        : new Cmp(k, Cmp.Op.EQUAL, CmpTarget.modRevision(current.modRevision()));
  }

  private void remember(String key, long revision, Decision d) {
    KnownValues.Value v = new KnownValues.Value(revision, d.value, d.record, true);
    known.put(key, d.record == null ? v : v.withRecord(d.record));
  }

  /**
   * Writes {@code d} if the key still is {@code current}; a lost race retries from what it reads.
   */
  private CompletableFuture<MirrorOutcome> write(
      String key,
      ByteSequence k,
      Joiner joiner,
      KnownValues.Value current,
      Decision d,
      int retries) {
    metrics.countTxn();
    return bounded(
            kv.txn()
                .If(expected(k, current))
                .Then(Op.put(k, ByteSequence.from(d.value), PutOption.DEFAULT))
                .Else(Op.get(k, GetOption.DEFAULT))
                .commit())
        .thenCompose(
            resp -> {
              if (resp.isSucceeded()) {
                remember(key, resp.getHeader().getRevision(), d);
                return CompletableFuture.completedFuture(
                    MirrorOutcome.of(d.result, retries, d.replacedInvalid));
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

  /** A request bounded by the timeout, counted in flight until etcd (or gRPC) answers it. */
  private <T> CompletableFuture<T> bounded(CompletableFuture<T> f) {
    metrics.callStarted();
    f.whenComplete((r, e) -> metrics.callEnded());
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

  /** One key of a batch: what is known of it, what to write, and its outcome once settled. */
  private static final class Call {
    final String key;
    final ByteSequence k;
    final Joiner joiner;
    final CompletableFuture<MirrorOutcome> outcome = new CompletableFuture<>();
    KnownValues.Value current;
    Decision decision;

    Call(String key, Joiner joiner) {
      this.key = key;
      this.k = ByteSequence.from(key, StandardCharsets.UTF_8);
      this.joiner = joiner;
    }

    void settle(MirrorOutcome o, Throwable e) {
      if (e != null) {
        outcome.completeExceptionally(e);
      } else {
        outcome.complete(o);
      }
    }
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
    static final Decision REFUSE_UNREADABLE =
        new Decision(MirrorResult.REFUSED_UNREADABLE, null, null, false);

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

    /** Write a table's derived fields alone; counted as {@link MirrorResult#TOO_LARGE}. */
    static Decision writeDerivedOnly(byte[] value) {
      return new Decision(MirrorResult.TOO_LARGE, value, null, false);
    }

    /** Whether there is something to write. */
    boolean writes() {
      return value != null;
    }

    /** Nothing to write; {@code stored} is the decoded current value, worth remembering. */
    static Decision unchanged(Object stored) {
      return new Decision(MirrorResult.UNCHANGED, null, stored, false);
    }
  }
}
