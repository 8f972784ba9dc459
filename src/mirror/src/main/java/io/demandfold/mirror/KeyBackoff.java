package io.demandfold.mirror;

import java.util.function.DoubleSupplier;

/**
 * How long a key etcd refused for a reason of its own ({@link MirrorFailures#ofKey}) waits before
 * it is tried again: {@value #FIRST_MS} ms after its first refusal, doubling with each refusal in a
 * row up to {@value #MAX_MS} ms, each delay drawn between half of it and all of it, so that keys
 * refused together (a batch, a role that lost a range) do not come back together. A key etcd
 * writes, or a change of it that etcd takes, starts again from nothing. Thread-safe when its random
 * source is.
 */
final class KeyBackoff {
  /** The delay after a key's first refusal, before jitter. */
  static final long FIRST_MS = 100;

  /** The longest delay, before jitter: a key etcd keeps refusing is tried about this often. */
  static final long MAX_MS = 30_000;

  private final DoubleSupplier random;

  /**
   * @param random uniform in [0, 1): where the jitter comes from
   */
  KeyBackoff(DoubleSupplier random) {
    this.random = random;
  }

  /** A backoff with the jitter of {@link java.util.concurrent.ThreadLocalRandom}. */
  static KeyBackoff jittered() {
    return new KeyBackoff(() -> java.util.concurrent.ThreadLocalRandom.current().nextDouble());
  }

  /** The delay, before jitter, after {@code refusals} refusals in a row (at least 1). */
  static long ceilingMs(int refusals) {
    if (refusals < 1) {
      throw new IllegalArgumentException("refusals must be >= 1, got " + refusals);
    }
    int doublings = Math.min(refusals - 1, 20);
    return Math.min(MAX_MS, FIRST_MS << doublings);
  }

  /** How long to wait after {@code refusals} refusals in a row: in [ceiling / 2, ceiling]. */
  long delayMs(int refusals) {
    long ceiling = ceilingMs(refusals);
    long half = ceiling / 2;
    return half + (long) (random.getAsDouble() * (ceiling - half + 1));
  }
}
