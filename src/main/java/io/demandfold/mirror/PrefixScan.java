package io.demandfold.mirror;

import io.demandfold.core.Causes;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads every key under a prefix at one revision, a page at a time, in key order. The first page
 * fixes the revision (etcd's current one) unless the scan is resumed at a named one. A page the
 * gRPC message limit refuses (large records) is read again half as large, down to one key, and the
 * smaller size is kept; so is, with a {@linkplain #pageBytes byte budget}, a page whose keys and
 * values come back larger than the budget (down to the budget's least page size). Not thread-safe.
 *
 * <pre>{@code
 * PrefixScan scan = new PrefixScan(kv, layout.shardRecordsPrefix(), 500, Duration.ofSeconds(5));
 * PrefixScan.Page page;
 * do {
 *   page = scan.next();
 *   // page.kvs(), all read at page.revision()
 * } while (!page.last());
 * }</pre>
 */
public final class PrefixScan {
  private static final Logger log = LoggerFactory.getLogger(PrefixScan.class);

  /** One page: the revision read, its keys in order, whether it is the last, etcd's cluster id. */
  public record Page(long revision, List<KeyValue> kvs, boolean last, long clusterId) {}

  private final KV kv;
  private final ByteSequence end;
  private final Duration timeout;
  private int pageSize;
  private long maxPageBytes;
  private int minPageSize = 1;
  private long revision;
  private ByteSequence from;

  /** A scan of {@code prefix} at etcd's current revision. */
  public PrefixScan(KV kv, String prefix, int pageSize, Duration timeout) {
    this(kv, prefix, pageSize, timeout, 0, null);
  }

  /**
   * A scan of {@code prefix} at {@code revision} (0: the current one) resumed after {@code
   * afterKey} ({@code null}: from the first key).
   */
  public PrefixScan(
      KV kv, String prefix, int pageSize, Duration timeout, long revision, String afterKey) {
    if (pageSize < 1) {
      throw new IllegalArgumentException("pageSize must be at least 1, got " + pageSize);
    }
    this.kv = kv;
    byte[] p = prefix.getBytes(StandardCharsets.UTF_8);
    this.end = ByteSequence.from(prefixEnd(p));
    this.pageSize = pageSize;
    this.timeout = timeout;
    this.revision = revision;
    this.from =
        afterKey == null
            ? ByteSequence.from(p)
            : ByteSequence.from(after(afterKey.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * Bounds the bytes (keys and values) of a page: a page that comes back larger, with more than
   * {@code minPageSize} keys, is read again half as large, down to {@code minPageSize} keys, and
   * the smaller size is kept for the next pages.
   *
   * @param maxBytes the budget of a page, positive
   * @param minPageSize the fewest keys a page is cut to, at least 1
   * @return this scan
   */
  public PrefixScan pageBytes(long maxBytes, int minPageSize) {
    if (maxBytes < 1 || minPageSize < 1) {
      throw new IllegalArgumentException(
          "pageBytes needs a positive budget and a least page size of at least 1, got "
              + maxBytes
              + " and "
              + minPageSize);
    }
    this.maxPageBytes = maxBytes;
    this.minPageSize = minPageSize;
    return this;
  }

  /** How many keys the next page asks for. */
  public int pageSize() {
    return pageSize;
  }

  /** The revision read at; 0 until the first page of a scan at the current revision. */
  public long revision() {
    return revision;
  }

  /**
   * Reads the next page.
   *
   * @throws ExecutionException when etcd fails, e.g. when it has compacted the revision away
   * @throws TimeoutException when etcd does not answer in time
   */
  public Page next() throws ExecutionException, TimeoutException, InterruptedException {
    while (true) {
      GetOption.Builder option = GetOption.builder().withRange(end).withLimit(pageSize);
      if (revision > 0) {
        option.withRevision(revision);
      }
      GetResponse r;
      try {
        r = kv.get(from, option.build()).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        if (pageSize > 1 && tooLarge(e)) {
          pageSize = Math.max(1, pageSize / 2);
          log.warn(
              "etcd refused a page of keys as too large; reading {} keys a page from now on",
              pageSize);
          continue;
        }
        throw e;
      }
      if (maxPageBytes > 0
          && pageSize > minPageSize
          && r.getKvs().size() > minPageSize
          && bytes(r.getKvs()) > maxPageBytes) {
        pageSize = Math.max(minPageSize, pageSize / 2);
        log.debug(
            "a page of keys exceeded {} bytes; reading {} keys a page", maxPageBytes, pageSize);
        continue;
      }
      if (revision == 0) {
        revision = r.getHeader().getRevision();
      }
      List<KeyValue> kvs = r.getKvs();
      if (!kvs.isEmpty()) {
        from = ByteSequence.from(after(kvs.get(kvs.size() - 1).getKey().getBytes()));
      }
      return new Page(revision, kvs, !r.isMore() || kvs.isEmpty(), r.getHeader().getClusterId());
    }
  }

  private static long bytes(List<KeyValue> kvs) {
    long n = 0;
    for (KeyValue kv : kvs) {
      n += kv.getKey().size() + kv.getValue().size();
    }
    return n;
  }

  private static boolean tooLarge(Throwable e) {
    return Causes.any(
        e,
        t ->
            t instanceof StatusRuntimeException s
                && s.getStatus().getCode() == Status.Code.RESOURCE_EXHAUSTED);
  }

  /** The smallest key after {@code key}: {@code key + 0x00}. */
  private static byte[] after(byte[] key) {
    return Arrays.copyOf(key, key.length + 1);
  }

  /**
   * The end of the range of keys starting with {@code prefix}: the smallest key greater than every
   * key with this prefix (its last byte that is not {@code 0xFF} incremented, the rest dropped;
   * {@code 0x00}, etcd's "to the end", when every byte is {@code 0xFF}).
   */
  public static byte[] prefixEnd(byte[] prefix) {
    byte[] end = prefix.clone();
    for (int i = end.length - 1; i >= 0; i--) {
      if (end[i] != (byte) 0xFF) {
        end[i]++;
        return Arrays.copyOf(end, i + 1);
      }
    }
    return new byte[] {0};
  }
}
