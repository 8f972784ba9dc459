package io.demandfold.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.app.EtcdErrors.Kind;
import io.grpc.Status;
import java.net.ConnectException;
import java.util.concurrent.ExecutionException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** The failures jetcd 0.8 surfaces from etcd 3.4 (as seen in EtcdSecurityIT), classified. */
class EtcdErrorsTest {

  private static Throwable wrapped(Status outer, Throwable cause) {
    return new ExecutionException(outer.withCause(cause).asRuntimeException());
  }

  @Test
  void shouldTellWrongCredentialsFromMissingAndDisabledAuthentication() {
    Throwable wrongPassword =
        wrapped(
            Status.UNAUTHENTICATED,
            Status.INVALID_ARGUMENT
                .withDescription("etcdserver: authentication failed, invalid user ID or password")
                .asRuntimeException());
    assertThat(EtcdErrors.classify(wrongPassword)).isEqualTo(Kind.CREDENTIALS);
    assertThat(EtcdErrors.describe(wrongPassword))
        .isEqualTo("etcdserver: authentication failed, invalid user ID or password");

    Throwable noUser =
        new ExecutionException(
            Status.INVALID_ARGUMENT
                .withDescription("etcdserver: user name is empty")
                .asRuntimeException());
    assertThat(EtcdErrors.classify(noUser)).isEqualTo(Kind.AUTH_REQUIRED);

    Throwable disabled =
        wrapped(
            Status.UNAUTHENTICATED,
            Status.FAILED_PRECONDITION
                .withDescription("etcdserver: authentication is not enabled")
                .asRuntimeException());
    assertThat(EtcdErrors.classify(disabled)).isEqualTo(Kind.AUTH_DISABLED);
  }

  @Test
  void shouldTellPermissionsFromTlsFromAnOutage() {
    assertThat(
            EtcdErrors.classify(
                new ExecutionException(
                    Status.PERMISSION_DENIED
                        .withDescription("etcdserver: permission denied")
                        .asRuntimeException())))
        .isEqualTo(Kind.PERMISSION);
    Throwable untrusted =
        wrapped(
            Status.UNAVAILABLE.withDescription("io exception\nChannel Pipeline: [SslHandler#0]"),
            new SSLHandshakeException("PKIX path building failed: no path to the CA"));
    assertThat(EtcdErrors.classify(untrusted)).isEqualTo(Kind.SERVER_CERTIFICATE);
    assertThat(EtcdErrors.describe(untrusted))
        .isEqualTo("PKIX path building failed: no path to the CA");
    assertThat(
            EtcdErrors.classify(
                wrapped(
                    Status.UNAVAILABLE.withDescription("ssl exception"),
                    new SSLHandshakeException("Received fatal alert: bad_certificate"))))
        .isEqualTo(Kind.TLS);
    Throwable down =
        wrapped(
            Status.UNAVAILABLE.withDescription("io exception"),
            new ConnectException("Connection refused"));
    assertThat(EtcdErrors.classify(down)).isEqualTo(Kind.OTHER);
    assertThat(EtcdErrors.describe(down)).isEqualTo("Connection refused");
  }
}
