package io.demandfold.connect;

import io.demandfold.mirror.EtcdLayout;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads every key under {@code <prefix>/demand-events/} at one revision, a page at a time, in key
 * order. The first page fixes the revision (etcd's current one) unless a resumed snapshot names it.
 * Not thread-safe.
 */
final class Snapshot {
  /** One page: the revision read, its keys, whether it is the last, the etcd cluster id. */
  record Page(long revision, List<KeyValue> kvs, boolean last, String clusterId) {}

  private final KV kv;
  private final ByteSequence end;
  private final int pageSize;
  private final Duration timeout;
  private long revision;
  private ByteSequence from;

  /** A fresh snapshot at etcd's current revision. */
  Snapshot(KV kv, EtcdLayout layout, int pageSize, Duration timeout) {
    this(kv, layout, pageSize, timeout, 0, null);
  }

  /**
   * A snapshot at {@code revision} (0: the current one) resumed after {@code afterKey} ({@code
   * null}: from the first key).
   */
  Snapshot(
      KV kv, EtcdLayout layout, int pageSize, Duration timeout, long revision, String afterKey) {
    this.kv = kv;
    byte[] prefix = layout.shardRecordsPrefix().getBytes(StandardCharsets.UTF_8);
    this.end = ByteSequence.from(prefixEnd(prefix));
    this.pageSize = pageSize;
    this.timeout = timeout;
    this.revision = revision;
    this.from =
        afterKey == null
            ? ByteSequence.from(prefix)
            : ByteSequence.from(after(afterKey.getBytes(StandardCharsets.UTF_8)));
  }

  long revision() {
    return revision;
  }

  /**
   * Reads the next page.
   *
   * @throws ExecutionException when etcd fails (see {@link EtcdFailures#isCompacted})
   * @throws TimeoutException when etcd does not answer in time
   */
  Page next() throws ExecutionException, TimeoutException, InterruptedException {
    GetOption.Builder option = GetOption.builder().withRange(end).withLimit(pageSize);
    if (revision > 0) {
      option.withRevision(revision);
    }
    GetResponse r = kv.get(from, option.build()).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (revision == 0) {
      revision = r.getHeader().getRevision();
    }
    List<KeyValue> kvs = r.getKvs();
    if (!kvs.isEmpty()) {
      from = ByteSequence.from(after(kvs.get(kvs.size() - 1).getKey().getBytes()));
    }
    return new Page(
        revision, kvs, !r.isMore() || kvs.isEmpty(), clusterId(r.getHeader().getClusterId()));
  }

  static String clusterId(long id) {
    return Long.toHexString(id);
  }

  /** The smallest key after {@code key}: {@code key + 0x00}. */
  private static byte[] after(byte[] key) {
    return Arrays.copyOf(key, key.length + 1);
  }

  /** The end of the range of keys starting with {@code prefix} (its last byte incremented). */
  static byte[] prefixEnd(byte[] prefix) {
    byte[] end = prefix.clone();
    for (int i = end.length - 1; i >= 0; i--) {
      if (end[i] != (byte) 0xff) {
        end[i]++;
        return Arrays.copyOf(end, i + 1);
      }
    }
    return new byte[] {0};
  }
}
