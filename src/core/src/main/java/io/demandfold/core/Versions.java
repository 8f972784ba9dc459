package io.demandfold.core;

/**
 * The version rule of docs/model.md section 8: {@code v} 0 is read as 1, anything else is unknown.
 */
public final class Versions {
  /** The only version this code writes. */
  public static final int CURRENT = 1;

  private Versions() {}

  /**
   * Returns the normalised version of a record read with {@code v}.
   *
   * @throws UnknownVersionException when {@code v} is neither 0 nor 1
   */
  public static int check(long v) {
    if (v == 0 || v == 1) {
      return CURRENT;
    }
    throw new UnknownVersionException(v);
  }
}
