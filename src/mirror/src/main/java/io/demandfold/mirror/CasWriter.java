package io.demandfold.mirror;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Response;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mirror's conversation with etcd: reads the keys it does not know (in one request), has each
 * key decided, writes the keys whose decision writes in transactions that compare every key's
 * mod_revision (version 0 to create) and whose else-branch reads them back, and retries a lost race
 * from what that read returned, at most {@code maxRetries} times per key. When a batch's compare
 * fails, each of its keys goes on alone, the keys that lost a race counted. jetcd does not retry a
 * {@code txn()} by itself: this loop is the only retry. Every request is bounded by the timeout and
 * counted, and its answer's header watched ({@link EtcdEpoch}): when etcd lost writes, the mirror
 * forgets every value it knew. Thread-safe; completions run on jetcd's threads.
 */
final class CasWriter {
  private static final Logger log = LoggerFactory.getLogger(CasWriter.class);

  private final KV kv;
  private final KnownValues known;
  private final MirrorMetrics metrics;
  private final RequestBudget budget;
  private final int maxRetries;
  private final long timeoutMs;
  private final EtcdEpoch epoch = new EtcdEpoch();

  CasWriter(
      KV kv,
      KnownValues known,
      MirrorMetrics metrics,
      RequestBudget budget,
      int maxRetries,
      Duration timeout) {
    this.kv = kv;
    this.known = known;
    this.metrics = metrics;
    this.budget = budget;
    this.maxRetries = maxRetries;
    this.timeoutMs = timeout.toMillis();
  }

  /**
   * Reads the keys whose value is not known, decides every key, writes those that change, and
   * completes each call's outcome (exceptionally when etcd failed). Keys must be distinct and of
   * one {@link KeyCall#kind}, which their requests are counted under.
   */
  <R> void run(List<KeyCall<R>> calls) {
    readUnknown(calls)
        .whenComplete(
            (ok, e) -> {
              try {
                if (e != null) {
                  throw e;
                }
                writeDecided(calls);
              } catch (Throwable x) {
                calls.forEach(c -> c.outcome.completeExceptionally(x));
              }
            });
  }

  /** Reads, in one request, the keys whose value the mirror does not know. */
  private <R> CompletableFuture<Void> readUnknown(List<KeyCall<R>> calls) {
    List<KeyCall<R>> unknown = new ArrayList<>();
    for (KeyCall<R> c : calls) {
      c.current = known.get(c.etcdKey);
      if (c.current == null) {
        unknown.add(c);
      }
    }
    if (unknown.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    long bytes = RequestBudget.REQUEST_FRAMING_BYTES;
    for (KeyCall<R> c : unknown) {
      bytes += c.etcdKeyBytes.size() + RequestBudget.KEY_FRAMING_BYTES;
    }
    metrics.countGet(unknown.get(0).kind, bytes);
    if (unknown.size() == 1) {
      KeyCall<R> c = unknown.get(0);
      return bounded(() -> kv.get(c.etcdKeyBytes))
          .thenAccept(r -> c.current = known.observed(c.etcdKey, first(r)));
    }
    Op[] gets =
        unknown.stream().map(c -> Op.get(c.etcdKeyBytes, GetOption.DEFAULT)).toArray(Op[]::new);
    return bounded(() -> kv.txn().Then(gets).commit())
        .thenAccept(
            r -> {
              List<GetResponse> got = r.getGetResponses();
              for (int i = 0; i < unknown.size(); i++) {
                KeyCall<R> c = unknown.get(i);
                c.current = known.observed(c.etcdKey, first(got.get(i)));
              }
            });
  }

  /** Decides every call, completes those with nothing to write, writes the rest in batches. */
  private <R> void writeDecided(List<KeyCall<R>> calls) {
    List<KeyCall<R>> writes = new ArrayList<>();
    for (KeyCall<R> c : calls) {
      c.decision = decide(c, c.current);
      if (c.decision.writes()) {
        writes.add(c);
      } else {
        c.outcome.complete(MirrorOutcome.of(c.decision.result(), 0, false));
      }
    }
    for (List<KeyCall<R>> batch :
        budget.split(writes, c -> c.etcdKeyBytes.size(), c -> c.decision.value().length)) {
      writeBatch(batch);
    }
  }

  private <R> void writeBatch(List<KeyCall<R>> batch) {
    if (batch.size() == 1) {
      KeyCall<R> c = batch.get(0);
      write(c, c.current, c.decision, 0).whenComplete(c::settle);
      return;
    }
    Cmp[] compares = new Cmp[batch.size()];
    Op[] puts = new Op[batch.size()];
    Op[] gets = new Op[batch.size()];
    long bytes = RequestBudget.REQUEST_FRAMING_BYTES;
    for (int i = 0; i < batch.size(); i++) {
      KeyCall<R> c = batch.get(i);
      compares[i] = expected(c.etcdKeyBytes, c.current);
      puts[i] = Op.put(c.etcdKeyBytes, ByteSequence.from(c.decision.value()), PutOption.DEFAULT);
      gets[i] = Op.get(c.etcdKeyBytes, GetOption.DEFAULT);
      bytes += RequestBudget.writeBytes(c.etcdKeyBytes.size(), c.decision.value().length);
    }
    metrics.countTxn(batch.get(0).kind, bytes);
    bounded(() -> kv.txn().If(compares).Then(puts).Else(gets).commit())
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

  private <R> void settleBatch(List<KeyCall<R>> batch, TxnResponse resp) {
    for (int i = 0; i < batch.size(); i++) {
      KeyCall<R> c = batch.get(i);
      if (resp.isSucceeded()) {
        known.written(c.etcdKey, resp.getHeader().getRevision(), c.decision);
        c.outcome.complete(MirrorOutcome.of(c.decision.result(), 0, c.decision.replacedInvalid()));
      } else {
        KnownValues.Value seen = known.observed(c.etcdKey, first(resp.getGetResponses().get(i)));
        // only the keys whose compare failed lost a race; the rest just go on alone
        int lost = sameRevision(seen, c.current) ? 0 : 1;
        attempt(c, seen, lost).whenComplete(c::settle);
      }
    }
  }

  /** Decides the key anew from {@code current} and writes it if the decision writes. */
  private <R> CompletableFuture<MirrorOutcome> attempt(
      KeyCall<R> c, KnownValues.Value current, int retries) {
    Decision<R> d = decide(c, current);
    if (!d.writes()) {
      return CompletableFuture.completedFuture(MirrorOutcome.of(d.result(), retries, false));
    }
    return write(c, current, d, retries);
  }

  /** The call's decision; an unchanged join remembers the decoded stored record. */
  private <R> Decision<R> decide(KeyCall<R> c, KnownValues.Value current) {
    Decision<R> d = c.decider.decide(current);
    if (d.result() == MirrorResult.UNCHANGED
        && current != null
        && current.record() == null
        && d.record() != null) {
      known.put(c.etcdKey, current.withRecord(d.record()));
    }
    return d;
  }

  /**
   * Writes {@code d} if the key still is {@code current}; a lost race retries from what it reads.
   */
  private <R> CompletableFuture<MirrorOutcome> write(
      KeyCall<R> c, KnownValues.Value current, Decision<R> d, int retries) {
    metrics.countTxn(
        c.kind,
        RequestBudget.REQUEST_FRAMING_BYTES
            + RequestBudget.writeBytes(c.etcdKeyBytes.size(), d.value().length));
    return bounded(
            () ->
                kv.txn()
                    .If(expected(c.etcdKeyBytes, current))
                    .Then(Op.put(c.etcdKeyBytes, ByteSequence.from(d.value()), PutOption.DEFAULT))
                    .Else(Op.get(c.etcdKeyBytes, GetOption.DEFAULT))
                    .commit())
        .thenCompose(
            resp -> {
              if (resp.isSucceeded()) {
                known.written(c.etcdKey, resp.getHeader().getRevision(), d);
                return CompletableFuture.completedFuture(
                    MirrorOutcome.of(d.result(), retries, d.replacedInvalid()));
              }
              KeyValue now =
                  resp.getGetResponses().isEmpty() ? null : first(resp.getGetResponses().get(0));
              KnownValues.Value seen = known.observed(c.etcdKey, now);
              if (retries >= maxRetries) {
                return CompletableFuture.completedFuture(
                    MirrorOutcome.failed(new MirrorFailures.LostRaces(retries + 1), retries));
              }
              return attempt(c, seen, retries + 1);
            });
  }

  /**
   * Reads {@code key} (its key alone) only for the answer's header: etcd losing writes is noticed
   * while no key is written.
   */
  CompletableFuture<Void> probe(ByteSequence key) {
    metrics.countProbe(
        RequestBudget.REQUEST_FRAMING_BYTES + key.size() + RequestBudget.KEY_FRAMING_BYTES);
    return bounded(() -> kv.get(key, GetOption.builder().withKeysOnly(true).build()))
        .thenApply(r -> null);
  }

  /** How many times etcd was seen to lose writes. */
  long rewinds() {
    return epoch.rewinds();
  }

  /**
   * Issues {@code request}, bounded by the timeout and counted in flight until etcd (or gRPC)
   * answers it; its answer's header is compared with what etcd had said before the request was
   * issued, before the answer is used. What etcd had said is taken before {@code request} runs: an
   * answer to another request that arrives while this one is being issued may come from after this
   * one was served, and must not bound it (taken after, it made a healthy etcd look rewound).
   */
  private <T extends Response> CompletableFuture<T> bounded(
      Supplier<CompletableFuture<T>> request) {
    EtcdEpoch.Sent sent = epoch.sent();
    CompletableFuture<T> f = request.get();
    metrics.callStarted();
    f.whenComplete((r, e) -> metrics.callEnded());
    return f.orTimeout(timeoutMs, TimeUnit.MILLISECONDS)
        .thenApply(
            r -> {
              watch(sent, r.getHeader());
              return r;
            });
  }

  private void watch(EtcdEpoch.Sent sent, Response.Header h) {
    EtcdEpoch.Rewind lost = epoch.observe(sent, h.getClusterId(), h.getRevision());
    if (lost == null) {
      return;
    }
    known.clear();
    metrics.rewound();
    log.warn(
        EtcdMirror.LOST_WRITES_WARNING
            + " it answered as cluster {} at revision {}, after cluster {} at revision"
            + " {}{}; the mirror forgets every value it knew (the pipeline then writes every"
            + " record of its tasks again)",
        Long.toHexString(lost.newClusterId()),
        lost.revision(),
        Long.toHexString(lost.oldClusterId()),
        lost.highestRevision(),
        lost.newCluster() ? " (another cluster)" : " (a lower revision: restored or wiped)");
  }

  private static boolean sameRevision(KnownValues.Value a, KnownValues.Value b) {
    return a == null ? b == null : b != null && a.modRevision() == b.modRevision();
  }

  /** The compare of a write: the key is still at the revision read, or still absent. */
  private static Cmp expected(ByteSequence key, KnownValues.Value current) {
    return current == null
        ? new Cmp(key, Cmp.Op.EQUAL, CmpTarget.version(0))
        : new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(current.modRevision()));
  }

  private static KeyValue first(GetResponse r) {
    return r.getKvs().isEmpty() ? null : r.getKvs().get(0);
  }
}
