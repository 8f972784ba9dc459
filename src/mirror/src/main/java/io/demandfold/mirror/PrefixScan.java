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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
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
 * <p>A page's range ends where the keys still to read end only while few keys are left. etcd 3.4
 * counts every key from a page's start to its range's end to answer a ranged get (the response's
 * {@code count}), so pages of a million keys each ending at the prefix's end cost in all the square
 * of the keys (about 0.5 s a page in the middle of a million). When a page's count says that more
 * than {@linkplain #splitAbove four pages} of keys follow it, the rest of its range is cut at the
 * next byte of the keys into up to 18 ranges read one after the other ({@link #split}), each
 * counted on its own; a range that is still large is cut again when it is read. The walk then costs
 * each key a few counts, one per cut, and the keys come out in the same order at the same revision.
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

  /** The cut of a page's rest is made when more than this many pages of keys follow it. */
  static final int SPLIT_PAGES = 4;

  private final KV kv;
  private final Duration timeout;
  private int pageSize;
  private long maxPageBytes;
  private int minPageSize = 1;
  private long revision;
  private long clusterId;

  /** The ranges still to read, {@code {from, end}}, in key order; the first is being read. */
  private final Deque<byte[][]> ranges = new ArrayDeque<>();

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
    this.pageSize = pageSize;
    this.timeout = timeout;
    this.revision = revision;
    byte[] from = afterKey == null ? p : after(afterKey.getBytes(StandardCharsets.UTF_8));
    ranges.add(new byte[][] {from, prefixEnd(p)});
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

  /** More keys than this following a page make the scan cut the rest of its range. */
  int splitAbove() {
    return SPLIT_PAGES * pageSize;
  }

  /**
   * Reads the next page.
   *
   * @throws ExecutionException when etcd fails, e.g. when it has compacted the revision away
   * @throws TimeoutException when etcd does not answer in time
   */
  public Page next() throws ExecutionException, TimeoutException, InterruptedException {
    while (!ranges.isEmpty()) {
      byte[][] range = ranges.getFirst();
      GetResponse r = read(range[0], range[1]); // a failed read leaves the range to read again
      ranges.removeFirst();
      if (revision == 0) {
        revision = r.getHeader().getRevision();
      }
      clusterId = r.getHeader().getClusterId();
      List<KeyValue> kvs = r.getKvs();
      if (!kvs.isEmpty() && r.isMore()) {
        byte[] rest = after(kvs.get(kvs.size() - 1).getKey().getBytes());
        if (r.getCount() - kvs.size() > splitAbove()) {
          List<byte[][]> pieces = split(rest, range[1]);
          for (int i = pieces.size() - 1; i >= 0; i--) {
            ranges.addFirst(pieces.get(i));
          }
        } else {
          ranges.addFirst(new byte[][] {rest, range[1]});
        }
      }
      if (!kvs.isEmpty() || ranges.isEmpty()) {
        return new Page(revision, kvs, ranges.isEmpty(), clusterId);
      }
    }
    return new Page(revision, List.of(), true, clusterId);
  }

  /** One ranged get of {@code [from, end)}, a page large, cut smaller as the limits ask. */
  private GetResponse read(byte[] from, byte[] end)
      throws ExecutionException, TimeoutException, InterruptedException {
    while (true) {
      GetOption.Builder option =
          GetOption.builder().withRange(ByteSequence.from(end)).withLimit(pageSize);
      if (revision > 0) {
        option.withRevision(revision);
      }
      GetResponse r;
      try {
        r =
            kv.get(ByteSequence.from(from), option.build())
                .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
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
      return r;
    }
  }

  /**
   * Cuts the range {@code [from, end)} at the next byte of its keys into ranges that follow one
   * another in key order and together hold exactly its keys: two or more unless the range can hold
   * one key at most, or reaches to the end of the key space ({@code end} {@code 0x00}), which is
   * left whole. Where {@code from} and {@code end} first differ, at byte {@code d}: the rest of
   * {@code from}'s value of that byte, then the values up to {@code end}'s in at most {@value
   * #BUCKETS} ranges of consecutive values, then the rest up to {@code end}; when {@code end} is
   * the end of the keys starting with {@code from}'s first {@code d + 1} bytes, the cut is made at
   * the byte after them instead. A range of many values is cut again by value when it is read, so a
   * walk asks for few empty ranges however sparse the bytes of its keys are.
   */
  static List<byte[][]> split(byte[] from, byte[] end) {
    List<byte[][]> out = new ArrayList<>();
    if (end.length == 1 && end[0] == 0) {
      out.add(new byte[][] {from, end});
      return out;
    }
    int d = Arrays.mismatch(from, end);
    if (d < 0 || d == end.length || (d < from.length && (from[d] & 0xFF) > (end[d] & 0xFF))) {
      return out; // from >= end: no keys
    }
    if (d == from.length) {
      // from is a prefix of end: the key from itself (etcd has no empty key, and an end of 0x00
      // would mean "to the end"), then from + x for each byte x below end[d]
      if (from.length > 0) {
        out.add(new byte[][] {from, child(from, 0)});
      }
      int h = end[d] & 0xFF;
      buckets(from, 0, h, null, out);
      if (end.length > d + 1) {
        out.add(new byte[][] {child(from, h), end});
      }
      return out;
    }
    int l = from[d] & 0xFF;
    int h = end[d] & 0xFF;
    if (h == l + 1 && end.length == d + 1) {
      return splitUnder(Arrays.copyOf(from, d + 1), from, end, out);
    }
    byte[] common = Arrays.copyOf(from, d);
    out.add(new byte[][] {from, child(common, l + 1)});
    buckets(common, l + 1, h, null, out);
    if (end.length > d + 1) {
      out.add(new byte[][] {child(common, h), end});
    }
    return out;
  }

  /** The cut of {@code [from, end)} where every key starts with {@code q} and end ends them. */
  private static List<byte[][]> splitUnder(byte[] q, byte[] from, byte[] end, List<byte[][]> out) {
    while (from.length > q.length && (from[q.length] & 0xFF) == 0xFF) {
      q = Arrays.copyOf(from, q.length + 1);
    }
    int first;
    if (from.length == q.length) {
      out.add(new byte[][] {from, child(q, 0)});
      first = 0;
    } else {
      int m = from[q.length] & 0xFF;
      out.add(new byte[][] {from, child(q, m + 1)});
      first = m + 1;
    }
    buckets(q, first, 0x100, end, out);
    return out;
  }

  /** The most ranges a cut makes of the values of one byte. */
  static final int BUCKETS = 16;

  /**
   * Ranges of the keys {@code parent + x} for {@code x} in {@code [lo, hi)}, at most {@link
   * #BUCKETS} of consecutive values; the last ends at {@code lastEnd} when {@code hi} is 0x100.
   */
  private static void buckets(byte[] parent, int lo, int hi, byte[] lastEnd, List<byte[][]> out) {
    int step = Math.max(1, (hi - lo + BUCKETS - 1) / BUCKETS);
    for (int x = lo; x < hi; x += step) {
      int next = Math.min(hi, x + step);
      out.add(new byte[][] {child(parent, x), next == 0x100 ? lastEnd : child(parent, next)});
    }
  }

  /** {@code parent} followed by the byte {@code x}. */
  private static byte[] child(byte[] parent, int x) {
    byte[] c = Arrays.copyOf(parent, parent.length + 1);
    c[parent.length] = (byte) x;
    return c;
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
