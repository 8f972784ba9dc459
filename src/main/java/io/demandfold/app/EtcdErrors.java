package io.demandfold.app;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/** Classifies etcd client failures. */
final class EtcdErrors {
  private EtcdErrors() {}

  /** Whether {@code e} says the credentials or permissions are wrong (not a passing outage). */
  static boolean isAuthFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      Status.Code code = null;
      if (t instanceof StatusRuntimeException) {
        code = ((StatusRuntimeException) t).getStatus().getCode();
      } else if (t instanceof io.grpc.StatusException) {
        code = ((io.grpc.StatusException) t).getStatus().getCode();
      }
      if (code == Status.Code.UNAUTHENTICATED
          || code == Status.Code.PERMISSION_DENIED
          || code == Status.Code.INVALID_ARGUMENT) {
        return true;
      }
      String m = t.getMessage();
      if (m != null && (m.contains("authentication failed") || m.contains("permission denied"))) {
        return true;
      }
    }
    return false;
  }
}
