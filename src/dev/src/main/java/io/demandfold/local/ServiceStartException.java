package io.demandfold.local;

/**
 * A local service could not be started or did not become ready; the message says why and, when the
 * child process wrote anything, ends with the last lines of its log file.
 */
public final class ServiceStartException extends RuntimeException {
  ServiceStartException(String message) {
    super(message);
  }

  ServiceStartException(String message, Throwable cause) {
    super(message, cause);
  }
}
