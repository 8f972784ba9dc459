package io.demandfold.http;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The recent totals of this instance, so that a chart shows the trend at once: every {@link
 * #STEP_MS} (5 s) the totals over the tables held here ({@link DemandTotals}), the last {@link
 * #CAPACITY} samples (an hour) in a ring buffer. Steps are multiples of 5 s since the epoch, so the
 * samples of several instances line up and add up. A step whose stores could not be read (a
 * rebalance, a restore) has no sample.
 *
 * <pre>{@code
 * DemandHistory h = new DemandHistory(store, System::currentTimeMillis);
 * h.start(); // samples at every step until close()
 * h.samples(); // oldest first
 * h.last(); // the newest sample, or null when the last step could not be read
 * }</pre>
 */
final class DemandHistory implements AutoCloseable {
  static final long STEP_MS = 5000;
  static final int CAPACITY = 720;

  private static final Logger log = LoggerFactory.getLogger(DemandHistory.class);

  /** The totals of one step, {@code stepMs} a multiple of {@link #STEP_MS}. */
  record Sample(long stepMs, DemandTotals totals) {}

  private final DemandStore store;
  private final LongSupplier clock;
  private final Sample[] ring = new Sample[CAPACITY];
  private int next;
  private int size;
  private volatile Sample last;
  private ScheduledExecutorService timer;

  DemandHistory(DemandStore store, LongSupplier clock) {
    this.store = store;
    this.clock = clock;
  }

  /**
   * Samples the stores now, for the step the clock is in; a second sample of a step replaces it.
   */
  void sample() {
    long now = clock.getAsLong();
    DemandTotals t;
    try {
      t = DemandTotals.of(store.tables());
    } catch (StoreUnavailableException e) {
      last = null;
      return;
    }
    record(new Sample(now - Math.floorMod(now, STEP_MS), t));
  }

  private synchronized void record(Sample s) {
    if (size > 0) {
      int newest = Math.floorMod(next - 1, CAPACITY);
      if (ring[newest].stepMs() == s.stepMs()) {
        ring[newest] = s;
        last = s;
        return;
      }
      if (ring[newest].stepMs() > s.stepMs()) {
        return; // the wall clock went back: keep the order
      }
    }
    ring[next] = s;
    next = (next + 1) % CAPACITY;
    size = Math.min(size + 1, CAPACITY);
    last = s;
  }

  /** The samples of the last hour, oldest first. */
  synchronized List<Sample> samples() {
    long from = clock.getAsLong() - CAPACITY * STEP_MS;
    List<Sample> out = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      Sample s = ring[Math.floorMod(next - size + i, CAPACITY)];
      if (s.stepMs() > from) {
        out.add(s);
      }
    }
    return out;
  }

  /** The time now by this history's clock, in milliseconds since the epoch. */
  long now() {
    return clock.getAsLong();
  }

  /** The newest sample; null before the first one and while the stores cannot be read. */
  Sample last() {
    return last;
  }

  /** Samples shortly after each step boundary, on a daemon thread, until {@link #close()}. */
  synchronized void start() {
    if (timer != null) {
      throw new IllegalStateException("already started");
    }
    timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "demandfold-history");
              t.setDaemon(true);
              return t;
            });
    scheduleNext();
  }

  private void scheduleNext() {
    long now = clock.getAsLong();
    long delay = STEP_MS - Math.floorMod(now, STEP_MS) + 50;
    ScheduledExecutorService t = timer;
    if (t == null || t.isShutdown()) {
      return;
    }
    t.schedule(
        () -> {
          try {
            sample();
          } catch (RuntimeException e) {
            log.warn("cannot sample the demand totals", e);
          } finally {
            scheduleNext();
          }
        },
        delay,
        TimeUnit.MILLISECONDS);
  }

  @Override
  public synchronized void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
