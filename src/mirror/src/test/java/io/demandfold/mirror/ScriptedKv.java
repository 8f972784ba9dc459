package io.demandfold.mirror;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Txn;
import io.etcd.jetcd.api.PutResponse;
import io.etcd.jetcd.api.RangeResponse;
import io.etcd.jetcd.api.ResponseHeader;
import io.etcd.jetcd.api.ResponseOp;
import io.etcd.jetcd.kv.CompactResponse;
import io.etcd.jetcd.kv.DeleteResponse;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.CompactOption;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.TxnOption;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A KV for {@link CasWriterTest} only: every get or transaction is a request the test answers
 * itself, with the cluster id and revision it chooses; a hook may run while a request is being
 * issued (after the caller asked for it, before the call returns), as an answer to another request
 * arriving at that moment would. Gets answer with no key, transactions as succeeded (each get of
 * their then-branch with no key).
 */
final class ScriptedKv implements KV {
  /** A request issued: a get or a transaction, and the future the test completes. */
  record Request(String kind, CompletableFuture<?> future, List<Op> then) {}

  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final AtomicReference<Runnable> whileIssuing = new AtomicReference<>();

  /** Runs {@code hook} while the next request is issued, before its call returns. */
  void whileIssuingNext(Runnable hook) {
    whileIssuing.set(hook);
  }

  /** The requests issued so far, in order. */
  List<Request> requests() {
    return requests;
  }

  /** Answers request {@code i} as etcd of {@code clusterId} at {@code revision}. */
  @SuppressWarnings("unchecked")
  void answer(int i, long clusterId, long revision) {
    Request r = requests.get(i);
    ResponseHeader h =
        ResponseHeader.newBuilder().setClusterId(clusterId).setRevision(revision).build();
    if (r.kind().equals("get")) {
      ((CompletableFuture<GetResponse>) r.future())
          .complete(
              new GetResponse(RangeResponse.newBuilder().setHeader(h).build(), ByteSequence.EMPTY));
    } else {
      io.etcd.jetcd.api.TxnResponse.Builder b =
          io.etcd.jetcd.api.TxnResponse.newBuilder().setHeader(h).setSucceeded(true);
      for (Op op : r.then()) {
        b.addResponses(
            op instanceof Op.GetOp
                ? ResponseOp.newBuilder().setResponseRange(RangeResponse.newBuilder().setHeader(h))
                : ResponseOp.newBuilder().setResponsePut(PutResponse.newBuilder().setHeader(h)));
      }
      ((CompletableFuture<TxnResponse>) r.future())
          .complete(new TxnResponse(b.build(), ByteSequence.EMPTY));
    }
  }

  private <T> CompletableFuture<T> issue(String kind, List<Op> then) {
    CompletableFuture<T> f = new CompletableFuture<>();
    requests.add(new Request(kind, f, then));
    Runnable hook = whileIssuing.getAndSet(null);
    if (hook != null) {
      hook.run();
    }
    return f;
  }

  @Override
  public CompletableFuture<GetResponse> get(ByteSequence key) {
    return issue("get", List.of());
  }

  @Override
  public CompletableFuture<GetResponse> get(ByteSequence key, GetOption option) {
    return issue("get", List.of());
  }

  @Override
  public Txn txn() {
    return new Txn() {
      private List<Op> then = List.of();

      @Override
      public Txn If(Cmp... cmps) {
        return this;
      }

      @Override
      public Txn Then(Op... ops) {
        then = List.of(ops);
        return this;
      }

      @Override
      public Txn Else(Op... ops) {
        return this;
      }

      @Override
      public CompletableFuture<TxnResponse> commit() {
        return issue("txn", then);
      }
    };
  }

  @Override
  public Txn txn(TxnOption option) {
    return txn();
  }

  @Override
  public CompletableFuture<io.etcd.jetcd.kv.PutResponse> put(ByteSequence key, ByteSequence value) {
    throw new UnsupportedOperationException("the mirror writes in transactions only");
  }

  @Override
  public CompletableFuture<io.etcd.jetcd.kv.PutResponse> put(
      ByteSequence key, ByteSequence value, PutOption option) {
    throw new UnsupportedOperationException("the mirror writes in transactions only");
  }

  @Override
  public CompletableFuture<DeleteResponse> delete(ByteSequence key) {
    throw new UnsupportedOperationException("the mirror never deletes");
  }

  @Override
  public CompletableFuture<DeleteResponse> delete(ByteSequence key, DeleteOption option) {
    throw new UnsupportedOperationException("the mirror never deletes");
  }

  @Override
  public CompletableFuture<CompactResponse> compact(long rev) {
    throw new UnsupportedOperationException("the mirror never compacts");
  }

  @Override
  public CompletableFuture<CompactResponse> compact(long rev, CompactOption option) {
    throw new UnsupportedOperationException("the mirror never compacts");
  }

  @Override
  public void close() {}
}
