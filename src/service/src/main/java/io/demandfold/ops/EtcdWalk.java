package io.demandfold.ops;

import io.demandfold.core.Keys;
import io.demandfold.mirror.PrefixScan;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * A merge-walk of the keys under a prefix, read in pages ({@link PrefixScan}) at one revision,
 * against keys asked for in increasing order: {@link #seek} hands over every key passed on the way
 * and tells the value of the key asked for. Holds one page. Not thread-safe.
 */
final class EtcdWalk {
  /** Takes a key of etcd passed over by a seek: one that was not asked for. */
  @FunctionalInterface
  interface Passed {
    void accept(String key, byte[] value);
  }

  private final PrefixScan scan;
  private List<KeyValue> page = List.of();
  private int next;
  private boolean last;
  private String lastAsked;

  /** A walk of {@code prefix} at {@code revision} (0: the current one, fixed by the first page). */
  EtcdWalk(KV kv, String prefix, long revision, long timeoutMs)
      throws ExecutionException, TimeoutException, InterruptedException {
    this.scan =
        new PrefixScan(kv, prefix, EtcdSnapshot.PAGE, Duration.ofMillis(timeoutMs), revision, null);
    fill();
  }

  /** The revision read at. */
  long revision() {
    return scan.revision();
  }

  /**
   * The value of {@code key} in etcd, or null; every key before it not yet handed over goes to
   * {@code passed}.
   *
   * @throws IllegalStateException when {@code key} is not after the key asked for before
   */
  byte[] seek(String key, Passed passed)
      throws ExecutionException, TimeoutException, InterruptedException {
    if (lastAsked != null && Keys.UTF8_ORDER.compare(lastAsked, key) >= 0) {
      throw new IllegalStateException(
          "keys asked out of order: '" + key + "' after '" + lastAsked + "'");
    }
    lastAsked = key;
    while (true) {
      if (next == page.size()) {
        if (last) {
          return null;
        }
        fill();
        continue;
      }
      KeyValue kv = page.get(next);
      String actual = kv.getKey().toString(StandardCharsets.UTF_8);
      int c = Keys.UTF8_ORDER.compare(actual, key);
      if (c > 0) {
        return null;
      }
      next++;
      if (c == 0) {
        return kv.getValue().getBytes();
      }
      passed.accept(actual, kv.getValue().getBytes());
    }
  }

  /** Hands every key not yet handed over to {@code passed}. */
  void rest(Passed passed) throws ExecutionException, TimeoutException, InterruptedException {
    while (true) {
      for (; next < page.size(); next++) {
        KeyValue kv = page.get(next);
        passed.accept(kv.getKey().toString(StandardCharsets.UTF_8), kv.getValue().getBytes());
      }
      if (last) {
        return;
      }
      fill();
    }
  }

  private void fill() throws ExecutionException, TimeoutException, InterruptedException {
    PrefixScan.Page p = scan.next();
    page = p.kvs();
    next = 0;
    last = p.last();
  }
}
