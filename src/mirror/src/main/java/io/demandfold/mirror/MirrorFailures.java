package io.demandfold.mirror;

import io.demandfold.core.Causes;
import io.etcd.jetcd.common.exception.EtcdException;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;

/**
 * Tells a failed write's errors apart: an error of the key's own, which etcd gave for what this
 * request carries and would give again whatever the other keys do, from an error of etcd itself,
 * which every key would meet. A key's own: permission denied (the user's role does not grant the
 * key), a request too large for etcd ({@code --max-request-bytes} below {@code
 * etcd.max.request.bytes}, or over gRPC's message limit), a transaction of more operations than
 * etcd takes ({@code --max-txn-ops}), and every compare-and-swap lost ({@link LostRaces}: another
 * writer keeps changing the key). Anything else is etcd's: unavailable, a timeout, no leader, too
 * many requests, an expired token, and any error not known to be a key's, so that an unknown error
 * still pauses every key as before rather than hammer a sick etcd key by key.
 */
final class MirrorFailures {
  private MirrorFailures() {}

  /**
   * A key lost its compare-and-swap race every time it was tried: another writer keeps changing it.
   */
  static final class LostRaces extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    LostRaces(int times) {
      super("lost the compare-and-swap race " + times + " times");
    }
  }

  /** Whether {@code e} (or a cause of it) is an error of the key's own (see the class comment). */
  static boolean ofKey(Throwable e) {
    return Causes.any(e, MirrorFailures::ofKeyAlone);
  }

  private static boolean ofKeyAlone(Throwable t) {
    if (t instanceof LostRaces) {
      return true;
    }
    String m = t.getMessage() == null ? "" : t.getMessage();
    String code = code(t);
    return "PERMISSION_DENIED".equals(code)
        || m.contains("permission denied")
        || m.contains("request is too large")
        || m.contains("too many operations in txn request")
        // gRPC's own message limits, on either side; RESOURCE_EXHAUSTED alone is etcd's overload
        || ("RESOURCE_EXHAUSTED".equals(code)
            && (m.contains("larger than max") || m.contains("exceeds maximum size")));
  }

  /** The gRPC status code {@code t} carries, by name; {@code null} when none. */
  private static String code(Throwable t) {
    if (t instanceof StatusRuntimeException s) {
      return s.getStatus().getCode().name();
    }
    if (t instanceof StatusException s) {
      return s.getStatus().getCode().name();
    }
    if (t instanceof EtcdException s) {
      return s.getErrorCode().name();
    }
    return null;
  }
}
