package io.demandfold.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.common.exception.EtcdExceptionFactory;
import io.grpc.Status;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** Which failed writes are an error of the key's own and which of etcd itself. */
class MirrorFailuresTest {
  private static Throwable grpc(Status status, String description) {
    return status.withDescription(description).asRuntimeException();
  }

  @Test
  void shouldTellErrorsOfTheKeysOwnAsEtcdAndJetcdGiveThem() {
    assertThat(
            MirrorFailures.ofKey(grpc(Status.PERMISSION_DENIED, "etcdserver: permission denied")))
        .isTrue();
    assertThat(
            MirrorFailures.ofKey(
                new CompletionException(
                    EtcdExceptionFactory.toEtcdException(
                        Status.PERMISSION_DENIED.withDescription(
                            "etcdserver: permission denied")))))
        .as("jetcd's exception, wrapped by a future")
        .isTrue();
    assertThat(
            MirrorFailures.ofKey(
                new ExecutionException(
                    grpc(Status.INVALID_ARGUMENT, "etcdserver: request is too large"))))
        .isTrue();
    assertThat(
            MirrorFailures.ofKey(
                grpc(Status.INVALID_ARGUMENT, "etcdserver: too many operations in txn request")))
        .isTrue();
    assertThat(
            MirrorFailures.ofKey(
                grpc(
                    Status.RESOURCE_EXHAUSTED,
                    "grpc: received message larger than max (2097152 vs. 2621440)")))
        .isTrue();
    assertThat(MirrorFailures.ofKey(new MirrorFailures.LostRaces(6))).isTrue();
  }

  @Test
  void shouldTakeEveryOtherErrorForOneOfEtcd() {
    assertThat(MirrorFailures.ofKey(grpc(Status.UNAVAILABLE, "etcdserver: no leader"))).isFalse();
    assertThat(MirrorFailures.ofKey(grpc(Status.UNAVAILABLE, "io exception"))).isFalse();
    assertThat(MirrorFailures.ofKey(grpc(Status.DEADLINE_EXCEEDED, "deadline exceeded"))).isFalse();
    assertThat(
            MirrorFailures.ofKey(grpc(Status.RESOURCE_EXHAUSTED, "etcdserver: too many requests")))
        .as("etcd's overload")
        .isFalse();
    assertThat(MirrorFailures.ofKey(grpc(Status.UNAUTHENTICATED, "etcdserver: invalid auth token")))
        .isFalse();
    assertThat(MirrorFailures.ofKey(new CompletionException(new TimeoutException()))).isFalse();
    assertThat(MirrorFailures.ofKey(new IllegalStateException("something else"))).isFalse();
    assertThat(MirrorFailures.ofKey(null)).isFalse();
  }
}
