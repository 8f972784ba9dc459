package io.demandfold.app;

import io.demandfold.core.Causes;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import java.security.cert.CertificateException;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

/**
 * Classifies etcd client failures into what an operator must fix (credentials, permissions, TLS)
 * and what waiting may cure (an etcd that is down or unreachable).
 *
 * <p>What jetcd 0.8 surfaces from etcd 3.4: a wrong user or password is {@code UNAUTHENTICATED}
 * caused by {@code INVALID_ARGUMENT: etcdserver: authentication failed, invalid user ID or
 * password}; no user while etcd has authentication on is {@code INVALID_ARGUMENT: etcdserver: user
 * name is empty}; a user while it has authentication off is {@code UNAUTHENTICATED} caused by
 * {@code FAILED_PRECONDITION: etcdserver: authentication is not enabled}; a key outside the user's
 * roles is {@code PERMISSION_DENIED: etcdserver: permission denied}. TLS failures are {@code
 * UNAVAILABLE} caused by an {@link SSLHandshakeException}, and only reach the caller of a client
 * that does not wait for the connection to become ready.
 */
final class EtcdErrors {
  private EtcdErrors() {}

  /** What is wrong. */
  enum Kind {
    /** etcd refused the user name or password. */
    CREDENTIALS,
    /** etcd has authentication on, and no user is configured. */
    AUTH_REQUIRED,
    /** A user is configured, and etcd has authentication off. */
    AUTH_DISABLED,
    /** The user's roles do not grant the request on its keys. */
    PERMISSION,
    /** etcd's TLS certificate is not trusted (unknown CA, wrong host name, expired). */
    SERVER_CERTIFICATE,
    /** The TLS handshake failed otherwise: etcd refused our certificate, or no common protocol. */
    TLS,
    /** Anything else, e.g. etcd is down or unreachable: waiting may help. */
    OTHER
  }

  /** What {@code e} (or a cause of it) says is wrong. */
  static Kind classify(Throwable e) {
    Kind found = Kind.OTHER;
    for (Throwable t : Causes.chain(e)) {
      Kind k = classifyOne(t);
      if (k != Kind.OTHER) {
        // the deepest specific cause wins: UNAUTHENTICATED wraps the reason etcd gave
        found = k;
      }
    }
    return found;
  }

  private static Kind classifyOne(Throwable t) {
    String m = t.getMessage() == null ? "" : t.getMessage();
    if (m.contains("authentication is not enabled")) {
      return Kind.AUTH_DISABLED;
    }
    if (m.contains("user name is empty")) {
      return Kind.AUTH_REQUIRED;
    }
    if (m.contains("authentication failed") || m.contains("invalid user ID or password")) {
      return Kind.CREDENTIALS;
    }
    if (t instanceof CertificateException
        || m.contains("PKIX path")
        || m.contains("No subject alternative")
        || m.contains("No name matching")) {
      return Kind.SERVER_CERTIFICATE;
    }
    if (t instanceof SSLException) {
      return Kind.TLS;
    }
    Status.Code code = code(t);
    if (code == Status.Code.PERMISSION_DENIED || m.contains("permission denied")) {
      return Kind.PERMISSION;
    }
    if (code == Status.Code.UNAUTHENTICATED) {
      return Kind.CREDENTIALS;
    }
    return Kind.OTHER;
  }

  private static Status.Code code(Throwable t) {
    if (t instanceof StatusRuntimeException) {
      return ((StatusRuntimeException) t).getStatus().getCode();
    }
    if (t instanceof StatusException) {
      return ((StatusException) t).getStatus().getCode();
    }
    return null;
  }

  /** The most telling message of {@code e}'s causes: etcd's own words, or the TLS failure. */
  static String describe(Throwable e) {
    String best = null;
    for (Throwable t : Causes.chain(e)) {
      String m = t.getMessage();
      if (t instanceof StatusRuntimeException) {
        // etcd's own words, without gRPC's "CODE: " in front
        Status s = ((StatusRuntimeException) t).getStatus();
        m = s.getDescription() == null ? s.getCode().name() : s.getDescription();
      }
      if (m != null && !m.isBlank()) {
        int newline = m.indexOf('\n');
        best = newline < 0 ? m : m.substring(0, newline);
        if (classifyOne(t) != Kind.OTHER && !(t instanceof StatusRuntimeException)) {
          return best;
        }
      }
    }
    return best == null ? String.valueOf(e) : best;
  }
}
