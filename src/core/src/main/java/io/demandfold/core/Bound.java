package io.demandfold.core;

/** How exact an oldest-pending time is (docs/model.md section 6). */
public enum Bound {
  /** The flush time of the first unmerged generation. */
  EXACT,
  /**
   * The flush time of a later generation: the true time is at or before it. An upper bound must
   * never drive age-based promotion.
   */
  UPPER;

  /** {@code exact} or {@code upper}, as printed in JSON. */
  public String wire() {
    return this == EXACT ? "exact" : "upper";
  }
}
