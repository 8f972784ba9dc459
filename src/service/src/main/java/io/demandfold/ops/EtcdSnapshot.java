package io.demandfold.ops;

import io.demandfold.mirror.PrefixScan;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * Every key under a prefix at one revision, read in pages ({@link PrefixScan}): a page the gRPC
 * message limit refuses (large table records) is read again half as large, down to one key.
 */
public final class EtcdSnapshot {
  static final int PAGE = 500;

  private final SortedMap<String, byte[]> values;
  private final long revision;

  private EtcdSnapshot(SortedMap<String, byte[]> values, long revision) {
    this.values = values;
    this.revision = revision;
  }

  /** Reads every key starting with {@code prefix}. */
  public static EtcdSnapshot read(KV kv, String prefix, long timeoutMs)
      throws InterruptedException, ExecutionException, TimeoutException {
    PrefixScan scan = new PrefixScan(kv, prefix, PAGE, Duration.ofMillis(timeoutMs));
    SortedMap<String, byte[]> out = new TreeMap<>();
    PrefixScan.Page page;
    do {
      page = scan.next();
      for (KeyValue x : page.kvs()) {
        out.put(x.getKey().toString(StandardCharsets.UTF_8), x.getValue().getBytes());
      }
    } while (!page.last());
    return new EtcdSnapshot(Collections.unmodifiableSortedMap(out), page.revision());
  }

  /** Values by full key, in key order. */
  public SortedMap<String, byte[]> values() {
    return values;
  }

  /** The etcd revision the snapshot was read at. */
  public long revision() {
    return revision;
  }
}
