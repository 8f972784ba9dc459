package io.demandfold.mirror;

import io.demandfold.core.DerivedTable;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.core.codec.TableJson;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Mirrors folded records into etcd with a per-key read-join-compare-and-swap:
 *
 * <ol>
 *   <li>read the key ({@link KnownValues}: unless the mirror remembers it);
 *   <li>join the folded record into what is stored (docs/model.md section 4; {@link ShardJoiner},
 *       {@link TableJoiner}): a join that changes nothing writes nothing; a stored record of an
 *       unknown version, or JSON this reader cannot join, is never overwritten; a value that is not
 *       JSON is replaced;
 *   <li>write with a transaction comparing the mod_revision that was read (version 0 to create),
 *       whose else-branch reads the key again, so that a lost race costs one round trip ({@link
 *       CasWriter}; several keys share a transaction within the request limit, {@link
 *       RequestBudget});
 *   <li>retry a lost race a bounded number of times, then give up with {@link MirrorResult#FAILED}.
 * </ol>
 *
 * <p>Every request is bounded by a timeout. Calls are asynchronous and thread-safe; the caller
 * bounds how many are in flight. Completion callbacks run on jetcd's threads.
 *
 * <p>Why one class of this size: it is the mirror's public face and its builder, with a check and a
 * message for each argument; the work is done by ShardJoiner, TableJoiner, CasWriter, RequestBudget
 * and KnownValues.
 */
public final class EtcdMirror {
  private final EtcdLayout layout;
  private final KnownValues known;
  private final MirrorMetrics metrics;
  private final ShardJoiner shards;
  private final TableJoiner tables;
  private final CasWriter writer;

  /**
   * The smallest {@code maxRequestBytes} a mirror takes: room for a transaction's framing and a key
   * or two.
   */
  public static final int MIN_REQUEST_BYTES = 1024;

  /**
   * How the WARN line logged each time etcd was seen to lose writes begins (one line per count of
   * {@link #rewinds}): what a tool reading an instance's log counts.
   */
  public static final String LOST_WRITES_WARNING = "etcd lost writes:";

  private EtcdMirror(Builder b) {
    RequestBudget budget = new RequestBudget(b.maxRequestBytes);
    MirrorWarnings warnings = new MirrorWarnings();
    this.layout = b.layout;
    this.known = new KnownValues(b.cacheBytes);
    this.metrics = b.metrics;
    this.shards = new ShardJoiner(warnings);
    this.tables = new TableJoiner(budget, warnings);
    this.writer = new CasWriter(b.kv, known, metrics, budget, b.maxRetries, b.timeout);
  }

  /**
   * A builder of a mirror; every argument but {@code cacheBytes} is required:
   *
   * <pre>{@code
   * EtcdMirror mirror =
   *     EtcdMirror.builder()
   *         .kv(client.getKVClient())
   *         .layout(new EtcdLayout("/demandfold"))
   *         .maxRetries(5)
   *         .timeout(Duration.ofSeconds(5))
   *         .maxRequestBytes(1_572_864)
   *         .metrics(MirrorMetrics.detached())
   *         .cacheBytes(64L << 20)
   *         .build();
   * }</pre>
   *
   * A bad argument is refused where it is given, with a message naming it.
   */
  public static Builder builder() {
    return new Builder();
  }

  public EtcdLayout layout() {
    return layout;
  }

  /**
   * How many times etcd was seen to lose writes: it answered as another cluster, or at a revision
   * below one seen before the request (a restore from a snapshot, a wiped data directory). The
   * mirror then forgets every value it knew; the caller writes its keys again (when this grows).
   */
  public long rewinds() {
    return writer.rewinds();
  }

  /**
   * Reads {@code <prefix>/} (keys only; no record lives there) just to see etcd's answer, so that
   * etcd losing writes is noticed ({@link #rewinds}) while no key changes: a key inside the range a
   * role grants the mirror ({@code readwrite --prefix=true <prefix>/}), unlike the prefix itself.
   * Completes once etcd answered, exceptionally when it did not.
   */
  public CompletableFuture<Void> probe() {
    return writer.probe(ByteSequence.from(layout.prefix() + "/", StandardCharsets.UTF_8));
  }

  /**
   * Joins {@code folded} into {@code <prefix>/demand-events/<shardKey>}.
   *
   * @param shardKey {@code <hex>/<shard>}
   */
  public CompletableFuture<MirrorOutcome> mirrorShard(String shardKey, ShardRecord folded) {
    String key = layout.shardKey(shardKey);
    return one(RecordKind.SHARD, key, current -> shards.decide(key, current, folded, null));
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
    return mirrorShards(shardKeys, folded, Collections.nCopies(folded.size(), null));
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
    List<KeyCall<ShardRecord>> calls = new ArrayList<>(shardKeys.size());
    for (int i = 0; i < shardKeys.size(); i++) {
      String key = layout.shardKey(shardKeys.get(i));
      ShardRecord r = folded.get(i);
      byte[] j = json.get(i);
      calls.add(new KeyCall<>(RecordKind.SHARD, key, current -> shards.decide(key, current, r, j)));
    }
    return execute(RecordKind.SHARD, calls);
  }

  /** Joins {@code ours} into {@code <prefix>/demand/<hex>}. */
  public CompletableFuture<MirrorOutcome> mirrorTable(String hex, TableRecord ours) {
    String key = layout.tableKey(hex);
    return one(RecordKind.TABLE, key, current -> tables.decide(key, current, ours));
  }

  /**
   * How many shards a table record may have and still fit a request compact. A target with more is
   * written with its derived fields only ({@link #mirrorTableView}).
   */
  public int tableEntriesThatMayFit() {
    return tables.entriesThatMayFit();
  }

  /**
   * Writes the derived fields and progress alone into {@code <prefix>/demand/<hex>}, for a target
   * of {@code table.view().shards()} shards whose entries would not fit a request even compact (the
   * caller did not build them): replaces what is stored unless it is of an unknown version, JSON
   * this reader cannot read, or a record of higher progress (then {@link MirrorResult#UNCHANGED});
   * result {@link MirrorResult#TOO_LARGE}.
   */
  public CompletableFuture<MirrorOutcome> mirrorTableView(String hex, DerivedTable table) {
    String key = layout.tableKey(hex);
    byte[] bytes = TableJson.derivedOnly(table);
    return one(
        RecordKind.TABLE, key, current -> tables.decideDerivedOnly(key, current, table, bytes));
  }

  /** What this mirror would do to given values, without etcd: the dry run of {@code rebuild}. */
  public MirrorPreview preview() {
    return new MirrorPreview(layout, shards, tables);
  }

  /**
   * The value a table record is written as under {@code etcdKey}: compact when the full form would
   * exceed the request limit, its derived fields alone when even that would.
   */
  public static byte[] tableValue(String etcdKey, TableRecord r, int maxRequestBytes) {
    return new TableJoiner(new RequestBudget(maxRequestBytes), new MirrorWarnings())
        .value(etcdKey, r);
  }

  private <R> CompletableFuture<MirrorOutcome> one(
      RecordKind kind, String key, KeyCall.Decider<R> decider) {
    return execute(kind, List.of(new KeyCall<>(kind, key, decider))).get(0);
  }

  /** Runs the calls; one counted outcome per call, in their order. */
  private <R> List<CompletableFuture<MirrorOutcome>> execute(
      RecordKind kind, List<KeyCall<R>> calls) {
    writer.run(calls);
    List<CompletableFuture<MirrorOutcome>> outcomes = new ArrayList<>(calls.size());
    for (KeyCall<R> c : calls) {
      outcomes.add(finish(kind, c.etcdKey, c.outcome));
    }
    return outcomes;
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

  private static Throwable unwrap(Throwable e) {
    while ((e instanceof CompletionException || e instanceof ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /** Builds an {@link EtcdMirror}; see {@link EtcdMirror#builder()}. Not thread-safe. */
  public static final class Builder {
    private KV kv;
    private EtcdLayout layout;
    private Integer maxRetries;
    private Duration timeout;
    private Integer maxRequestBytes;
    private MirrorMetrics metrics;
    private long cacheBytes;

    private Builder() {}

    /** The etcd KV client the mirror reads and writes with. */
    public Builder kv(KV kv) {
      this.kv = requireNonNull(kv, "kv");
      return this;
    }

    /** Where records live. */
    public Builder layout(EtcdLayout layout) {
      this.layout = requireNonNull(layout, "layout");
      return this;
    }

    /** Lost compare-and-swap races retried per key before giving up; 0 retries none. */
    public Builder maxRetries(int maxRetries) {
      if (maxRetries < 0) {
        throw new IllegalArgumentException("maxRetries must be >= 0, got " + maxRetries);
      }
      this.maxRetries = maxRetries;
      return this;
    }

    /** Bound on each etcd request; at least a millisecond. */
    public Builder timeout(Duration timeout) {
      requireNonNull(timeout, "timeout");
      if (timeout.compareTo(Duration.ofMillis(1)) < 0) {
        throw new IllegalArgumentException("timeout must be >= 1 ms, got " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /**
     * etcd's request size limit (its {@code --max-request-bytes}), at least {@value
     * #MIN_REQUEST_BYTES}: writes are batched within it, larger table records written compact.
     */
    public Builder maxRequestBytes(int maxRequestBytes) {
      if (maxRequestBytes < MIN_REQUEST_BYTES) {
        throw new IllegalArgumentException(
            "maxRequestBytes must be >= " + MIN_REQUEST_BYTES + ", got " + maxRequestBytes);
      }
      this.maxRequestBytes = maxRequestBytes;
      return this;
    }

    /** Where outcomes and requests are counted. */
    public Builder metrics(MirrorMetrics metrics) {
      this.metrics = requireNonNull(metrics, "metrics");
      return this;
    }

    /**
     * Bytes of values and mod_revisions the mirror remembers of keys (default 0: none): a join that
     * changes nothing then sends no request, and a write is one compare-and-swap instead of a read
     * and a compare-and-swap. A stale entry costs one lost race, whose else-branch refreshes it.
     */
    public Builder cacheBytes(long cacheBytes) {
      if (cacheBytes < 0) {
        throw new IllegalArgumentException("cacheBytes must be >= 0, got " + cacheBytes);
      }
      this.cacheBytes = cacheBytes;
      return this;
    }

    /**
     * The mirror.
     *
     * @throws IllegalStateException naming a required argument that was not given
     */
    public EtcdMirror build() {
      List<String> missing = new ArrayList<>();
      if (kv == null) {
        missing.add("kv");
      }
      if (layout == null) {
        missing.add("layout");
      }
      if (maxRetries == null) {
        missing.add("maxRetries");
      }
      if (timeout == null) {
        missing.add("timeout");
      }
      if (maxRequestBytes == null) {
        missing.add("maxRequestBytes");
      }
      if (metrics == null) {
        missing.add("metrics");
      }
      if (!missing.isEmpty()) {
        throw new IllegalStateException(
            "EtcdMirror.builder() needs " + String.join(", ", missing) + " before build()");
      }
      return new EtcdMirror(this);
    }

    private static <T> T requireNonNull(T value, String name) {
      if (value == null) {
        throw new IllegalArgumentException(name + " must not be null");
      }
      return value;
    }
  }
}
