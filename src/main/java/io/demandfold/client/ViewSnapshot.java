package io.demandfold.client;

import io.demandfold.core.Keys;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.mirror.PrefixScan;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * Reads the keys the view holds at one revision: every table record ({@code <prefix>/demand/}),
 * then the shard records of each held target ({@code <prefix>/demand-events/<hex>/}) at the same
 * revision, in pages of at most {@value #PAGE_KEYS} keys within a byte budget ({@link
 * PrefixScan#pageBytes}: a page over it is read again smaller, down to {@value #MIN_PAGE_KEYS}
 * keys).
 */
final class ViewSnapshot {
  static final int PAGE_KEYS = 512;
  static final int MIN_PAGE_KEYS = 8;

  /** A snapshot: its revision, every key read, how many pages it took. */
  record Loaded(long revision, List<ViewEvent> kvs, int pages) {}

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
    long rev = scan(layout.tableRecordsPrefix(), 0, out, pages);
    for (String t : heldTargets) {
      scan(layout.shardRecordsPrefix() + Keys.hex(t) + "/", rev, out, pages);
    }
    return new Loaded(rev, out, pages[0]);
  }

  /** Reads {@code prefix} at {@code revision} (0: the current one); returns the revision read. */
  private long scan(String prefix, long revision, List<ViewEvent> out, int[] pages)
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
    return page.revision();
  }
}
