package io.demandfold.core;

/**
 * How urgently a table's maintenance is due, most urgent first ({@link DemandClasses} decides). The
 * declaration order is the order of urgency: {@link #CRITICAL} before {@link #DUE} before {@link
 * #PENDING} before {@link #IDLE}.
 */
public enum Urgency {
  /** At least the critical number of pending generations (default 256). */
  CRITICAL,
  /**
   * At least the due number of pending generations (default 8), or an oldest pending generation
   * older than the maximum age (default 3,600 s) by an {@link Bound#EXACT} time.
   */
  DUE,
  /** Some generations pending, below every threshold. */
  PENDING,
  /** Nothing pending. */
  IDLE;

  /** {@code critical}, {@code due}, {@code pending} or {@code idle}, as printed in JSON. */
  public String wire() {
    return EnumNames.of(this);
  }
}
