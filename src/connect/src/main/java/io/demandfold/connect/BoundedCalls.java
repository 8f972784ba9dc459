package io.demandfold.connect;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/** Runs one asynchronous call per key with at most {@code concurrency} in flight. */
final class BoundedCalls {
  private BoundedCalls() {}

  /**
   * Starts {@code call} for every key and waits until all are complete. A call that throws, fails
   * or is not complete within {@code patience} of its start completes exceptionally.
   *
   * @return the completed future of each key, in the order of {@code keys}
   */
  static <K, V> Map<K, CompletableFuture<V>> run(
      Collection<K> keys,
      int concurrency,
      Duration patience,
      Function<K, CompletableFuture<V>> call)
      throws InterruptedException {
    Semaphore permits = new Semaphore(concurrency);
    Map<K, CompletableFuture<V>> out = new LinkedHashMap<>();
    long patienceMs = patience.toMillis();
    for (K key : keys) {
      CompletableFuture<V> f;
      if (!permits.tryAcquire(patienceMs, TimeUnit.MILLISECONDS)) {
        f = CompletableFuture.failedFuture(new TimeoutException("no call slot within " + patience));
      } else {
        try {
          f = call.apply(key);
        } catch (RuntimeException e) {
          f = CompletableFuture.failedFuture(e);
        }
        f = f.orTimeout(patienceMs, TimeUnit.MILLISECONDS);
        f.whenComplete((v, e) -> permits.release());
      }
      out.put(key, f);
    }
    for (CompletableFuture<V> f : out.values()) {
      try {
        f.get();
      } catch (java.util.concurrent.ExecutionException e) {
        // kept in the future; the caller reads it
      }
    }
    return out;
  }
}
