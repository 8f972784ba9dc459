package io.demandfold.connect;

import io.demandfold.connect.EtcdSinkConfig.Input;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.Keys;
import io.demandfold.core.Printable;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.MirrorMetrics;
import io.demandfold.mirror.MirrorOutcome;
import io.demandfold.mirror.MirrorResult;
import io.demandfold.mirror.RecordKind;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.GetResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mirrors each {@code put()} batch into etcd and returns only when every key has settled, so that
 * the offsets Connect commits are those of records that are in etcd (Connect itself waits for the
 * reports of bad records before it commits past them).
 *
 * <ol>
 *   <li>decode each record ({@link SinkRecordDecoder}); a bad one goes to Connect's errant record
 *       reporter (dead-letter topic, log) or, without one, stops the task unless {@code
 *       errors.tolerance=all};
 *   <li>fold the batch per key ({@link SinkBatch});
 *   <li>join each key into etcd with the pipeline's {@link EtcdMirror}: never lowers a record,
 *       never overwrites one of an unknown version, writes nothing when nothing changes;
 *   <li>with {@code mirror.tables}, join each target's table record the same way;
 *   <li>when etcd failed for a key, throw {@link RetriableException}: Connect pauses, waits {@code
 *       etcd.retry.backoff.ms} (doubling) and delivers the same batch again, and only the keys that
 *       failed are mirrored again: the keys and table records of that batch that settled, and the
 *       records read back for its table records, are remembered and skipped. A batch of many keys
 *       against a flaky etcd member converges round by round instead of needing every key to
 *       succeed in the same round.
 * </ol>
 *
 * <p>Offsets stay as safe as before: {@code put()} returns only once every key of the batch has
 * settled, and Connect commits no offset of a batch whose {@code put()} threw.
 */
public final class EtcdSinkTask extends SinkTask {
  private static final Logger log = LoggerFactory.getLogger(EtcdSinkTask.class);

  private EtcdSinkConfig config;
  private Client client;
  private EtcdMirror mirror;
  private SinkRecordDecoder decoder;
  private ErrantRecordReporter reporter;
  private boolean tolerateAll;
  private int failures;

  /** Bad records of the batch being redelivered that were reported already. */
  private final Set<String> reported = new HashSet<>();

  /** The records (topic-partition@offset) of the batch that failed last, or {@code null}. */
  private List<String> failedBatch;

  /** Keys {@code <hex>/<shard>} of {@link #failedBatch} that settled already. */
  private final Set<String> settledShards = new HashSet<>();

  /** Table records ({@code <hex>}) of {@link #failedBatch} that settled already. */
  private final Set<String> settledTables = new HashSet<>();

  /**
   * What etcd held for keys of {@link #failedBatch} after they settled (empty: nothing, or nothing
   * this reader can join), read for their table records; a table record built from a value read in
   * an earlier round is still a valid join.
   */
  private final Map<String, Optional<ShardRecord>> storedReads = new HashMap<>();

  private LongAdder badRecords;
  private LongAdder tombstones;
  private LongAdder redeliveries;
  private LongAdder retriedKeys;

  @Override
  public String version() {
    return Version.get();
  }

  @Override
  public void start(Map<String, String> props) {
    config = new EtcdSinkConfig(props);
    decoder = new SinkRecordDecoder(config.input());
    tolerateAll = "all".equals(props.get("errors.tolerance"));
    try {
      reporter = context.errantRecordReporter();
    } catch (NoSuchMethodError | NoClassDefFoundError e) {
      reporter = null; // a worker older than Kafka 2.6
    }
    MirrorMetrics mirrorMetrics = MirrorMetrics.detached();
    TaskMetrics metrics = new TaskMetrics(context.pluginMetrics());
    for (RecordKind kind : RecordKind.values()) {
      for (MirrorResult result : MirrorResult.values()) {
        metrics.gauge(
            "mirror-total",
            "etcd keys mirrored, by kind and outcome",
            () -> mirrorMetrics.count(kind, result),
            "kind",
            kind.label(),
            "result",
            result.label());
      }
    }
    badRecords = metrics.counter("bad-records-total", "records that could not be read");
    tombstones = metrics.counter("tombstones-skipped-total", "tombstones skipped (never deleted)");
    redeliveries = metrics.counter("redeliveries-total", "batches handed back after etcd failed");
    retriedKeys =
        metrics.counter(
            "keys-retried-total", "keys (shard and table records) left to retry after etcd failed");
    try {
      client = config.etcd().connect();
    } catch (IllegalArgumentException e) {
      throw new ConnectException(e.getMessage(), e);
    }
    mirror = config.mirror(client.getKVClient(), mirrorMetrics);
    log.info(
        "etcd sink task started: input {}, etcd {} under {}, tables {}",
        config.input().wire(),
        config.etcd().endpoints(),
        config.layout().prefix(),
        config.mirrorTables());
  }

  @Override
  public void put(Collection<SinkRecord> records) {
    if (records.isEmpty()) {
      return;
    }
    List<String> ids = new ArrayList<>(records.size());
    for (SinkRecord r : records) {
      ids.add(where(r));
    }
    if (!ids.equals(failedBatch)) {
      // not the batch that failed (a rebalance came between): nothing of it is known to be settled
      failedBatch = null;
      settledShards.clear();
      settledTables.clear();
      storedReads.clear();
    }
    SinkBatch batch = new SinkBatch();
    for (SinkRecord r : records) {
      DemandEvent event;
      try {
        event = decoder.decode(r);
      } catch (InvalidEventException e) {
        bad(r, e);
        continue;
      }
      if (event == null) {
        tombstones.increment();
      } else {
        batch.add(event);
      }
    }
    if (!batch.isEmpty()) {
      try {
        mirror(batch);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failedBatch = ids;
        throw new RetriableException("interrupted while mirroring into etcd", e);
      } catch (RetriableException e) {
        failedBatch = ids;
        throw e;
      }
    }
    failures = 0;
    reported.clear();
    failedBatch = null;
    settledShards.clear();
    settledTables.clear();
    storedReads.clear();
  }

  private void mirror(SinkBatch batch) throws InterruptedException {
    Map<String, SinkBatch.Shard> shards = batch.shards();
    Map<String, Throwable> failed = new LinkedHashMap<>();
    List<String> todo = unsettled(shards.keySet(), settledShards);
    settle(
        BoundedCalls.run(
            todo,
            config.concurrency(),
            config.callPatience(),
            k -> mirror.mirrorShard(k, shards.get(k).record())),
        failed,
        settledShards);
    int tried = todo.size();
    if (failed.isEmpty() && config.mirrorTables()) {
      List<String> keysOfPendingTables =
          shards.entrySet().stream()
              .filter(e -> !settledTables.contains(Keys.hex(e.getValue().target())))
              .map(Map.Entry::getKey)
              .toList();
      int readsBefore = storedReads.size();
      Function<String, ShardRecord> current =
          config.input() == Input.EVENTS ? storedRecords(keysOfPendingTables, failed) : k -> null;
      tried += failed.size() + storedReads.size() - readsBefore;
      if (failed.isEmpty()) {
        Map<String, TableRecord> tables = batch.tables(current);
        List<String> pendingTables = unsettled(tables.keySet(), settledTables);
        tried += pendingTables.size();
        settle(
            BoundedCalls.run(
                pendingTables,
                config.concurrency(),
                config.callPatience(),
                hex -> mirror.mirrorTable(hex, tables.get(hex))),
            failed,
            settledTables);
      }
    }
    if (!failed.isEmpty()) {
      redeliver(failed, tried);
    }
  }

  private static List<String> unsettled(Collection<String> keys, Set<String> settled) {
    return keys.stream().filter(k -> !settled.contains(k)).toList();
  }

  /**
   * What etcd now holds for {@code keys}: after an events batch, a table record must be built from
   * the joined records, not from the batch's partial folds.
   */
  private Function<String, ShardRecord> storedRecords(
      Collection<String> keys, Map<String, Throwable> failed) throws InterruptedException {
    Map<String, CompletableFuture<GetResponse>> reads =
        BoundedCalls.run(
            unsettled(keys, storedReads.keySet()),
            config.concurrency(),
            config.callPatience(),
            k ->
                client
                    .getKVClient()
                    .get(ByteSequence.from(config.layout().shardKey(k), StandardCharsets.UTF_8)));
    reads.forEach(
        (k, f) -> {
          try {
            GetResponse r = f.get();
            storedReads.put(
                k,
                r.getKvs().isEmpty()
                    ? Optional.empty()
                    : Optional.of(JsonCodec.decodeRecord(r.getKvs().get(0).getValue().getBytes())));
          } catch (InvalidEventException e) {
            // unknown version or unreadable: the batch's own record stands for it
            storedReads.put(k, Optional.empty());
          } catch (ExecutionException e) {
            failed.put(k, e.getCause());
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    return k -> storedReads.getOrDefault(k, Optional.empty()).orElse(null);
  }

  private static void settle(
      Map<String, CompletableFuture<MirrorOutcome>> calls,
      Map<String, Throwable> failed,
      Set<String> settled) {
    calls.forEach(
        (k, f) -> {
          if (f.isCompletedExceptionally()) {
            failed.put(k, f.handle((v, e) -> e).join());
          } else if (!f.join().result().done()) {
            failed.put(k, f.join().error());
          } else {
            settled.add(k);
          }
        });
  }

  private void redeliver(Map<String, Throwable> failed, int keys) {
    failures++;
    redeliveries.increment();
    retriedKeys.add(failed.size());
    long backoff = config.backoffMs(failures);
    Map.Entry<String, Throwable> first = failed.entrySet().iterator().next();
    Throwable error = first.getValue();
    while (error instanceof java.util.concurrent.CompletionException && error.getCause() != null) {
      error = error.getCause();
    }
    String cause =
        error instanceof java.util.concurrent.TimeoutException
            ? "etcd did not answer within " + config.requestTimeout().toMillis() + " ms"
            : String.valueOf(error);
    log.warn(
        "{} of {} keys tried not mirrored into etcd (first {}: {}); retrying only those when"
            + " Connect redelivers the batch in {} ms, failure {} in a row",
        failed.size(),
        keys,
        Printable.escape(first.getKey()),
        cause,
        backoff,
        failures);
    context.timeout(backoff);
    throw new RetriableException(
        failed.size()
            + " keys not mirrored into etcd; first "
            + Printable.escape(first.getKey())
            + ": "
            + cause);
  }

  private static String where(SinkRecord r) {
    return r.topic() + "-" + r.kafkaPartition() + "@" + r.kafkaOffset();
  }

  private void bad(SinkRecord r, InvalidEventException e) {
    String where = where(r);
    if (!reported.add(where)) {
      return; // reported when this batch was first delivered
    }
    badRecords.increment();
    String message = e.reason().code() + ": " + e.getMessage();
    if (reporter != null) {
      reporter.report(r, new DataException(message, e));
    } else if (tolerateAll) {
      log.warn(
          "skipping record {}-{} at offset {}: {}",
          r.topic(),
          r.kafkaPartition(),
          r.kafkaOffset(),
          message);
    } else {
      throw new ConnectException(
          "cannot mirror record "
              + where
              + ": "
              + message
              + " (errors.tolerance=all with errors.deadletterqueue.topic.name sends such records"
              + " to a dead-letter topic instead)");
    }
  }

  @Override
  public void stop() {
    if (client != null) {
      client.close();
      client = null;
    }
  }
}
