package io.demandfold.local;

/** Sleeps between readiness polls; an interrupt ends the start with the interrupt flag kept. */
final class Pause {
  private Pause() {}

  static void millis(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ServiceStartException("interrupted while waiting for a service to start", e);
    }
  }
}
