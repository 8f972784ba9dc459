package io.demandfold.view;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.api.Event;
import io.etcd.jetcd.api.KeyValue;
import io.etcd.jetcd.api.RangeResponse;
import io.etcd.jetcd.api.ResponseHeader;
import io.etcd.jetcd.api.WatchResponse;
import io.etcd.jetcd.common.exception.EtcdExceptionFactory;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.grpc.Status;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A one-member etcd in memory behind jetcd's {@link Client} interface, for unit tests of the view's
 * thread with its real watch and snapshot code: keys with mod revisions, transactions of many keys
 * at one revision, a history, linearizable gets (with a header), and watches that answer as etcd
 * 3.4 does: a created notice, the history from the start revision in one response, then one
 * response per transaction, progress answers on request, a cancel when the start revision is
 * compacted. {@link #restore} puts back an older state as a restored etcd would. Only what the view
 * calls is implemented; the rest throws.
 */
final class FakeEtcd {
  /** One key of a transaction: a put ({@code value} set) or a delete. */
  record Op(String key, byte[] value) {}

  private record Ev(long revision, String key, byte[] value) {}

  private record Held(byte[] value, long modRevision) {}

  /** A watch the view opened; {@code synced} once it has had its history. */
  final class Watcher implements Watch.Watcher {
    final Watch.Listener listener;
    final byte[] from;
    final byte[] to;
    final long start;
    volatile boolean closed;

    Watcher(Watch.Listener listener, byte[] from, byte[] to, long start) {
      this.listener = listener;
      this.from = from;
      this.to = to;
      this.start = start;
    }

    @Override
    public void close() {
      synchronized (FakeEtcd.this) {
        if (closed) {
          return;
        }
        closed = true;
        watchers.remove(this);
      }
      listener.onCompleted(); // as jetcd does, on the closing thread
    }

    @Override
    public boolean isClosed() {
      return closed;
    }

    @Override
    public void requestProgress() {
      WatchResponse r;
      synchronized (FakeEtcd.this) {
        if (closed) {
          return;
        }
        r = WatchResponse.newBuilder().setHeader(header(progressRevision())).build();
      }
      listener.onNext(new io.etcd.jetcd.watch.WatchResponse(r));
    }

    boolean covers(String key) {
      byte[] k = key.getBytes(StandardCharsets.UTF_8);
      return Arrays.compareUnsigned(k, from) >= 0 && Arrays.compareUnsigned(k, to) < 0;
    }
  }

  private final TreeMap<String, Held> store = new TreeMap<>();
  private final List<Ev> history = new ArrayList<>();
  private final List<Watcher> watchers = new ArrayList<>();
  private final AtomicInteger gets = new AtomicInteger();
  private final AtomicInteger watchesOpened = new AtomicInteger();
  private long clusterId = 7;
  private long revision = 1;
  private boolean refuseWatches;
  private int maxResponseBytes = Integer.MAX_VALUE;
  private long compacted;
  private long lagBy;

  /** Commits {@code ops} at one new revision and tells every open watch; returns the revision. */
  long txn(Op... ops) {
    List<Watcher> open;
    long rev;
    List<Ev> evs = new ArrayList<>();
    synchronized (this) {
      rev = ++revision;
      for (Op op : ops) {
        if (op.value() == null) {
          store.remove(op.key());
        } else {
          store.put(op.key(), new Held(op.value(), rev));
        }
        Ev e = new Ev(rev, op.key(), op.value());
        history.add(e);
        evs.add(e);
      }
      open = List.copyOf(watchers);
    }
    for (Watcher w : open) {
      // etcd sends a watch from a future revision nothing below it
      List<Ev> mine = evs.stream().filter(e -> w.covers(e.key()) && rev >= w.start).toList();
      if (!mine.isEmpty()) {
        send(w, events(rev, mine));
      }
    }
    return rev;
  }

  static Op put(String key, byte[] value) {
    return new Op(key, value);
  }

  static Op delete(String key) {
    return new Op(key, null);
  }

  synchronized long revision() {
    return revision;
  }

  /** Forgets history up to {@code rev}: a watch from there or below is cancelled. */
  synchronized void compact(long rev) {
    compacted = rev;
    history.removeIf(e -> e.revision() <= rev);
  }

  /** Fails every open watch with {@code error}, as a broken connection does; they end. */
  void fail(Throwable error) {
    List<Watcher> open;
    synchronized (this) {
      open = List.copyOf(watchers);
      open.forEach(w -> w.closed = true);
      watchers.clear();
    }
    open.forEach(w -> w.listener.onError(error));
  }

  /**
   * Puts back the keys and revision of {@code older} (a copy taken earlier with {@link #copy}),
   * history and all, under the same cluster id: a restore from an older snapshot.
   */
  synchronized void restore(FakeEtcd older) {
    store.clear();
    store.putAll(older.store);
    history.clear();
    history.addAll(older.history);
    revision = older.revision;
    compacted = older.compacted;
  }

  /** A copy of the keys, history and revision now. */
  synchronized FakeEtcd copy() {
    FakeEtcd c = new FakeEtcd();
    c.store.putAll(store);
    c.history.addAll(history);
    c.revision = revision;
    c.compacted = compacted;
    c.clusterId = clusterId;
    return c;
  }

  /**
   * From now on watches answer (created and progress notices) {@code by} revisions behind the
   * store, as a member that lags behind the leader does; gets stay linearizable.
   */
  synchronized void lagWatches(long by) {
    lagBy = by;
  }

  /** Gets answered so far. */
  int gets() {
    return gets.get();
  }

  /** Watches opened so far, and those open now. */
  int watchesOpened() {
    return watchesOpened.get();
  }

  synchronized int openWatches() {
    return watchers.size();
  }

  /** A jetcd client of this etcd; closing it does nothing. */
  Client client() {
    KV kv = proxy(KV.class, this::kv);
    Watch watch = proxy(Watch.class, this::watch);
    return proxy(
        Client.class,
        (name, args) ->
            switch (name) {
              case "getKVClient" -> kv;
              case "getWatchClient" -> watch;
              case "close" -> null;
              default -> throw new UnsupportedOperationException(name);
            });
  }

  private interface Handler {
    Object call(String method, Object[] args) throws Exception;
  }

  private static <T> T proxy(Class<T> type, Handler h) {
    return type.cast(
        Proxy.newProxyInstance(
            FakeEtcd.class.getClassLoader(),
            new Class<?>[] {type},
            (p, m, args) -> {
              if (m.getDeclaringClass() == Object.class) {
                return switch (m.getName()) {
                  case "hashCode" -> System.identityHashCode(p);
                  case "equals" -> p == args[0];
                  default -> "FakeEtcd " + type.getSimpleName();
                };
              }
              return h.call(m.getName(), args);
            }));
  }

  private Object kv(String name, Object[] args) {
    if (!name.equals("get") || args.length != 2) {
      throw new UnsupportedOperationException("KV." + name);
    }
    ByteSequence key = (ByteSequence) args[0];
    GetOption option = (GetOption) args[1];
    gets.incrementAndGet();
    RangeResponse.Builder r;
    synchronized (this) {
      long at = option.getRevision() == 0 ? revision : option.getRevision();
      if (at != revision) {
        throw new UnsupportedOperationException("a read at an older revision");
      }
      r = RangeResponse.newBuilder().setHeader(header(revision));
      String from = key.toString(StandardCharsets.UTF_8);
      if (option.getEndKey().isEmpty()) {
        Held h = store.get(from);
        if (h != null) {
          r.addKvs(kv(from, h)).setCount(1);
        }
      } else {
        String to = option.getEndKey().get().toString(StandardCharsets.UTF_8);
        for (Map.Entry<String, Held> e : store.subMap(from, to).entrySet()) {
          r.addKvs(kv(e.getKey(), e.getValue()));
        }
        r.setCount(r.getKvsCount());
      }
    }
    return CompletableFuture.completedFuture(new GetResponse(r.build(), ByteSequence.EMPTY));
  }

  private Object watch(String name, Object[] args) {
    if (name.equals("requestProgress")) {
      List<Watcher> open;
      synchronized (this) {
        open = List.copyOf(watchers);
      }
      open.forEach(Watcher::requestProgress);
      return null;
    }
    if (name.equals("close")) {
      return null;
    }
    if (!name.equals("watch") || args.length != 3) {
      throw new UnsupportedOperationException("Watch." + name);
    }
    ByteSequence key = (ByteSequence) args[0];
    WatchOption option = (WatchOption) args[1];
    Watch.Listener listener = (Watch.Listener) args[2];
    long start = option.getRevision();
    Watcher w =
        new Watcher(listener, key.getBytes(), option.getEndKey().orElseThrow().getBytes(), start);
    watchesOpened.incrementAndGet();
    WatchResponse created;
    List<Ev> backlog;
    synchronized (this) {
      if (refuseWatches) {
        w.closed = true;
        listener.onError(new IllegalStateException("UNAVAILABLE: io exception"));
        return w;
      }
      if (start <= compacted) {
        w.closed = true;
        listener.onError(
            new IllegalStateException(
                "etcdserver: mvcc: required revision has been compacted (" + compacted + ")"));
        return w;
      }
      watchers.add(w);
      created =
          WatchResponse.newBuilder().setHeader(header(progressRevision())).setCreated(true).build();
      backlog = history.stream().filter(e -> e.revision() >= start && w.covers(e.key())).toList();
    }
    listener.onNext(new io.etcd.jetcd.watch.WatchResponse(created));
    if (!backlog.isEmpty()) {
      send(w, events(backlog.get(backlog.size() - 1).revision(), backlog));
    }
    return w;
  }

  /** A response over the client's inbound limit fails the watch, as gRPC does. */
  private void send(Watcher w, WatchResponse r) {
    if (r.getSerializedSize() > maxResponseBytes) {
      synchronized (this) {
        w.closed = true;
        watchers.remove(w);
      }
      w.listener.onError(
          EtcdExceptionFactory.toEtcdException(
              Status.RESOURCE_EXHAUSTED
                  .withDescription(
                      "gRPC message exceeds maximum size "
                          + maxResponseBytes
                          + ": "
                          + r.getSerializedSize())
                  .asRuntimeException()));
      return;
    }
    w.listener.onNext(new io.etcd.jetcd.watch.WatchResponse(r));
  }

  /** Whether new watches fail at once (etcd unreachable). */
  synchronized void refuseWatches(boolean refuse) {
    refuseWatches = refuse;
  }

  /** The client's inbound message limit: a larger watch response fails its watch. */
  synchronized void maxResponseBytes(int bytes) {
    maxResponseBytes = bytes;
  }

  private long progressRevision() {
    return Math.max(1, revision - lagBy);
  }

  private ResponseHeader header(long rev) {
    return ResponseHeader.newBuilder()
        .setClusterId(clusterId)
        .setMemberId(1)
        .setRevision(rev)
        .build();
  }

  private WatchResponse events(long headerRevision, List<Ev> evs) {
    WatchResponse.Builder r = WatchResponse.newBuilder().setHeader(header(headerRevision));
    for (Ev e : evs) {
      KeyValue.Builder kv =
          KeyValue.newBuilder()
              .setKey(ByteString.copyFromUtf8(e.key()))
              .setModRevision(e.revision());
      if (e.value() != null) {
        kv.setValue(ByteString.copyFrom(e.value()));
      }
      r.addEvents(
          Event.newBuilder()
              .setType(e.value() == null ? Event.EventType.DELETE : Event.EventType.PUT)
              .setKv(kv));
    }
    return r.build();
  }

  private static KeyValue kv(String key, Held h) {
    return KeyValue.newBuilder()
        .setKey(ByteString.copyFromUtf8(key))
        .setValue(ByteString.copyFrom(h.value()))
        .setModRevision(h.modRevision())
        .build();
  }
}
