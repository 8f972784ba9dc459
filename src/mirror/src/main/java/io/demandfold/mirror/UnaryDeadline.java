package io.demandfold.mirror;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Gives every unary etcd call that has no deadline one of the request timeout, so that gRPC itself
 * cancels it: a timeout on the caller's future leaves the call waiting inside gRPC (for a hung
 * etcd, until the connection's keepalive gives up), and a mirror that retries would pile calls up
 * for as long as etcd hangs. Streams (watches, lease keepalives) keep no deadline.
 */
final class UnaryDeadline implements ClientInterceptor {
  private final long timeoutNanos;

  UnaryDeadline(Duration timeout) {
    this.timeoutNanos = timeout.toNanos();
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(
      MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    if (method.getType() == MethodDescriptor.MethodType.UNARY && options.getDeadline() == null) {
      options = options.withDeadlineAfter(timeoutNanos, TimeUnit.NANOSECONDS);
    }
    return next.newCall(method, options);
  }
}
