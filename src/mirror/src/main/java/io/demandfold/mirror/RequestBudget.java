package io.demandfold.mirror;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * What fits one etcd request ({@code etcd.max.request.bytes}, etcd's {@code --max-request-bytes}).
 * A compare-and-swap carries each key {@value #KEY_COPIES} times (in the compare, the put and the
 * else-branch read) beside its value; the sizes here are generous estimates of the protobuf framing
 * around them. Needs no etcd.
 */
final class RequestBudget {
  /** Room for the protobuf tags, lengths and revision fields of a transaction around its keys. */
  static final int REQUEST_FRAMING_BYTES = 512;

  /** Room for the tags and lengths of one key's compare, put and read within a transaction. */
  static final int KEY_FRAMING_BYTES = 64;

  /** How many times a compare-and-swap carries its key: the compare, the put, the read. */
  static final int KEY_COPIES = 3;

  private final int maxRequestBytes;

  RequestBudget(int maxRequestBytes) {
    this.maxRequestBytes = maxRequestBytes;
  }

  int maxRequestBytes() {
    return maxRequestBytes;
  }

  /**
   * The most bytes a value may take in a one-key compare-and-swap of {@code etcdKey}: the limit
   * less the key's copies and the transaction's framing.
   */
  int valueBytes(String etcdKey) {
    int keyBytes = etcdKey.getBytes(StandardCharsets.UTF_8).length;
    return maxRequestBytes - (KEY_COPIES * keyBytes + REQUEST_FRAMING_BYTES);
  }

  /** What one key of {@code keyBytes} and its value of {@code valueBytes} add to a transaction. */
  static long writeBytes(int keyBytes, int valueBytes) {
    return (long) KEY_COPIES * keyBytes + valueBytes + KEY_FRAMING_BYTES;
  }

  /**
   * Splits {@code writes}, in their order, into the transactions that carry them: each as many
   * consecutive writes as fit the limit, and at least one (a write too large alone goes alone, and
   * etcd says what it thinks of it).
   *
   * @param keyBytes the bytes of a write's key
   * @param valueBytes the bytes of a write's value
   */
  <T> List<List<T>> split(List<T> writes, ToIntFunction<T> keyBytes, ToIntFunction<T> valueBytes) {
    List<List<T>> out = new ArrayList<>();
    List<T> batch = new ArrayList<>();
    long bytes = 0;
    for (T w : writes) {
      long size = writeBytes(keyBytes.applyAsInt(w), valueBytes.applyAsInt(w));
      if (!batch.isEmpty() && bytes + size > maxRequestBytes) {
        out.add(batch);
        batch = new ArrayList<>();
      }
      if (batch.isEmpty()) {
        // every transaction carries its framing, not only the first
        bytes = REQUEST_FRAMING_BYTES;
      }
      batch.add(w);
      bytes += size;
    }
    if (!batch.isEmpty()) {
      out.add(batch);
    }
    return out;
  }
}
