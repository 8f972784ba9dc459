package io.demandfold.view;

import io.demandfold.core.Causes;
import io.demandfold.core.Keys;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.mirror.PrefixScan;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads the keys the view holds at one revision: every table record ({@code <prefix>/demand/}),
 * then the shard records of each held target ({@code <prefix>/demand-events/<hex>/}) at the same
 * revision, in pages of at most {@value #PAGE_KEYS} keys within a byte budget ({@link
 * PrefixScan#pageBytes}: a page over it is read again smaller, down to {@value #MIN_PAGE_KEYS}
 * keys). Also the shard records of any target on demand, and etcd's revision ({@link #probe}).
 */
final class ViewSnapshot {
  static final int PAGE_KEYS = 512;
  static final int MIN_PAGE_KEYS = 8;

  /** A snapshot: its revision, every key read, how many pages it took, etcd's cluster id. */
  record Loaded(long revision, List<ViewEvent> kvs, int pages, long clusterId) {}

  /** etcd's revision and cluster id, from the header of a linearizable read. */
  record Probe(long revision, long clusterId) {}

  private final KV kv;
  private final EtcdLayout layout;
  private final Set<String> heldTargets;
  private final long pageBytes;
  private final Duration timeout;

  ViewSnapshot(
      KV kv, EtcdLayout layout, Set<String> heldTargets, long pageBytes, Duration timeout) {
    this.kv = kv;
    this.layout = layout;
    this.heldTargets = heldTargets;
    this.pageBytes = pageBytes;
    this.timeout = timeout;
  }

  /**
   * Reads a snapshot at etcd's current revision.
   *
   * @throws ExecutionException when etcd fails a read (also when it compacted the revision away
   *     during the read; the caller tries again)
   * @throws TimeoutException when etcd does not answer within the request timeout
   */
  Loaded load() throws ExecutionException, TimeoutException, InterruptedException {
    List<ViewEvent> out = new ArrayList<>();
    int[] pages = {0};
    long[] clusterId = {0};
    long rev = scan(layout.tableRecordsPrefix(), 0, out, pages, clusterId);
    for (String t : heldTargets) {
      scan(layout.shardRecordsPrefix() + Keys.hex(t) + "/", rev, out, pages, clusterId);
    }
    return new Loaded(rev, out, pages[0], clusterId[0]);
  }

  /**
   * The first snapshot, of a view that starts.
   *
   * @param etcd how to name etcd in a failure
   * @throws IllegalStateException saying why etcd cannot be read
   */
  Loaded first(String etcd) {
    try {
      return load();
    } catch (ExecutionException | TimeoutException | InterruptedException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException(
          "DemandView cannot read "
              + layout.tableRecordsPrefix()
              + " from etcd "
              + etcd
              + ": "
              + (e instanceof TimeoutException
                  ? "no answer within " + timeout.toMillis() + " ms"
                  : Causes.root(e).getMessage()),
          e);
    }
  }

  /**
   * Asks etcd its revision with a linearizable read of one key (its count only): served at or after
   * every revision any member had shown before it was sent.
   */
  Probe probe() throws ExecutionException, TimeoutException, InterruptedException {
    GetResponse r =
        kv.get(
                ByteSequence.from(layout.prefix(), StandardCharsets.UTF_8),
                GetOption.builder().withCountOnly(true).build())
            .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    return new Probe(r.getHeader().getRevision(), r.getHeader().getClusterId());
  }

  /**
   * Reads the shard records of {@code target} now, in shard order.
   *
   * @throws IllegalStateException when etcd cannot be read
   */
  List<ShardDemand> shards(String target) {
    String from = layout.shardRecordsPrefix() + Keys.hex(target) + "/";
    PrefixScan scan =
        new PrefixScan(kv, from, PAGE_KEYS, timeout).pageBytes(pageBytes, MIN_PAGE_KEYS);
    List<ShardDemand> out = new ArrayList<>();
    try {
      PrefixScan.Page page;
      do {
        page = scan.next();
        for (KeyValue x : page.kvs()) {
          String shard = x.getKey().toString(StandardCharsets.UTF_8).substring(from.length());
          out.add(
              ViewRecords.shardDemand(target, shard, x.getModRevision(), x.getValue().getBytes()));
        }
      } while (!page.last());
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot read " + from + " from etcd: " + Causes.root(e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading " + from, e);
    }
    return List.copyOf(out);
  }

  /** Reads {@code prefix} at {@code revision} (0: the current one); returns the revision read. */
  private long scan(
      String prefix, long revision, List<ViewEvent> out, int[] pages, long[] clusterId)
      throws ExecutionException, TimeoutException, InterruptedException {
    PrefixScan scan =
        new PrefixScan(kv, prefix, PAGE_KEYS, timeout, revision, null)
            .pageBytes(pageBytes, MIN_PAGE_KEYS);
    PrefixScan.Page page;
    do {
      page = scan.next();
      pages[0]++;
      for (KeyValue x : page.kvs()) {
        out.add(
            new ViewEvent(
                x.getKey().toString(StandardCharsets.UTF_8),
                x.getValue().getBytes(),
                x.getModRevision()));
      }
    } while (!page.last());
    clusterId[0] = page.clusterId();
    return page.revision();
  }
}
