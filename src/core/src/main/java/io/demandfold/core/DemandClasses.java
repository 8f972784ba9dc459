package io.demandfold.core;

import java.time.Duration;
import java.util.Comparator;
import java.util.function.Function;

/**
 * Sorts tables into {@link Urgency} classes by their {@link TableView}, with the reference
 * planner's thresholds by default: {@value #DEFAULT_DUE_GENERATIONS} pending generations make a
 * table due, {@value #DEFAULT_CRITICAL_GENERATIONS} critical, and an oldest pending generation
 * older than {@link #DEFAULT_MAX_AGE} (3,600 s) makes it due too. Only an {@link Bound#EXACT} time
 * ({@code oldest_pending_exact_ms}) counts for the age: an upper bound never promotes a table
 * (docs/model.md section 6).
 *
 * <p>{@link #urgencyOrder} ranks tables: the class first (critical, due, pending, idle), then more
 * pending generations, then the earlier exact oldest pending time (none last), then more pending
 * bytes, then the target in UTF-8 byte order. Pure: no clock of its own, no etcd, no Kafka; the
 * live view ({@code DemandView}) and the HTTP API ({@code /api/v1/queue}) both rank with it.
 */
public final class DemandClasses {
  public static final long DEFAULT_DUE_GENERATIONS = 8;
  public static final long DEFAULT_CRITICAL_GENERATIONS = 256;
  public static final Duration DEFAULT_MAX_AGE = Duration.ofSeconds(3600);

  private static final DemandClasses DEFAULTS =
      new DemandClasses(DEFAULT_DUE_GENERATIONS, DEFAULT_CRITICAL_GENERATIONS, DEFAULT_MAX_AGE);

  private final long dueGenerations;
  private final long criticalGenerations;
  private final Duration maxAge;

  /**
   * @param dueGenerations pending generations that make a table due, at least 1
   * @param criticalGenerations pending generations that make it critical, at least {@code
   *     dueGenerations}
   * @param maxAge the age of an exact oldest pending time that makes a table due, positive
   * @throws IllegalArgumentException naming the threshold that is out of range
   */
  public DemandClasses(long dueGenerations, long criticalGenerations, Duration maxAge) {
    if (dueGenerations < 1) {
      throw new IllegalArgumentException("dueGenerations must be >= 1, got " + dueGenerations);
    }
    if (criticalGenerations < dueGenerations) {
      throw new IllegalArgumentException(
          "criticalGenerations must be >= dueGenerations ("
              + dueGenerations
              + "), got "
              + criticalGenerations);
    }
    if (maxAge == null || maxAge.isNegative() || maxAge.isZero()) {
      throw new IllegalArgumentException("maxAge must be positive, got " + maxAge);
    }
    this.dueGenerations = dueGenerations;
    this.criticalGenerations = criticalGenerations;
    this.maxAge = maxAge;
  }

  /** The reference planner's thresholds: 8 due, 256 critical, 3,600 s maximum age. */
  public static DemandClasses defaults() {
    return DEFAULTS;
  }

  public long dueGenerations() {
    return dueGenerations;
  }

  public long criticalGenerations() {
    return criticalGenerations;
  }

  public Duration maxAge() {
    return maxAge;
  }

  /** The class of a table with view {@code v} at wall-clock time {@code nowMs}. */
  public Urgency classify(TableView v, long nowMs) {
    long pending = v.pendingGenerations();
    if (pending <= 0) {
      return Urgency.IDLE;
    }
    if (pending >= criticalGenerations) {
      return Urgency.CRITICAL;
    }
    if (pending >= dueGenerations) {
      return Urgency.DUE;
    }
    if (v.oldestPendingExactMs().isPresent()
        && nowMs - v.oldestPendingExactMs().getAsLong() >= maxAge.toMillis()) {
      return Urgency.DUE;
    }
    return Urgency.PENDING;
  }

  /**
   * The order of urgency over items that have a view and a target, at {@code nowMs}: class
   * (critical first), then {@link #withinClassOrder}.
   */
  public <T> Comparator<T> urgencyOrder(
      Function<? super T, TableView> view, Function<? super T, String> target, long nowMs) {
    Comparator<T> byClass = Comparator.comparing(t -> classify(view.apply(t), nowMs));
    return byClass.thenComparing(withinClassOrder(view, target));
  }

  /**
   * The order within a class: pending generations (more first), then the exact oldest pending time
   * (earlier first, none last), then pending bytes (more first), then the target (UTF-8 bytes).
   */
  public static <T> Comparator<T> withinClassOrder(
      Function<? super T, TableView> view, Function<? super T, String> target) {
    Comparator<T> byPending =
        Comparator.comparingLong((T t) -> view.apply(t).pendingGenerations()).reversed();
    return byPending
        .thenComparingLong(t -> view.apply(t).oldestPendingExactMs().orElse(Long.MAX_VALUE))
        .thenComparing(Comparator.comparingLong((T t) -> view.apply(t).pendingBytes()).reversed())
        .thenComparing(target, Keys.UTF8_ORDER);
  }

  @Override
  public String toString() {
    return "DemandClasses{due="
        + dueGenerations
        + ", critical="
        + criticalGenerations
        + ", maxAge="
        + maxAge
        + "}";
  }
}
