package io.demandfold.core;

/**
 * A record whose {@code v} is neither 0 nor 1 (docs/model.md section 8). Such an event never
 * reaches the fold; such a stored etcd record is never overwritten.
 */
public final class UnknownVersionException extends InvalidEventException {
  private static final long serialVersionUID = 1L;

  private final long version;

  public UnknownVersionException(long version) {
    super(Reason.UNKNOWN_VERSION, "unknown schema version " + version);
    this.version = version;
  }

  /**
   * A version too large for a long: still a version, never an error of the record's shape, so a
   * record of it is never overwritten either.
   *
   * @param versionText the version as written
   */
  public UnknownVersionException(String versionText) {
    super(Reason.UNKNOWN_VERSION, "unknown schema version " + versionText);
    this.version = Long.MAX_VALUE;
  }

  /** The version, or {@link Long#MAX_VALUE} for one too large for a long. */
  public long version() {
    return version;
  }
}
