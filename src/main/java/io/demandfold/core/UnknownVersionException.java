package io.demandfold.core;

/**
 * A record whose {@code v} is neither 0 nor 1 (spec section 8). Such an event never reaches the
 * fold; such a stored etcd record is never overwritten.
 */
public final class UnknownVersionException extends InvalidEventException {
  private static final long serialVersionUID = 1L;

  private final long version;

  public UnknownVersionException(long version) {
    super(Reason.UNKNOWN_VERSION, "unknown schema version " + version);
    this.version = version;
  }

  public long version() {
    return version;
  }
}
