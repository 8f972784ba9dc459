package io.demandfold.http;

/** The stores cannot answer now (rebalancing, restoring, not started); a retry later may work. */
public final class StoreUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public StoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
