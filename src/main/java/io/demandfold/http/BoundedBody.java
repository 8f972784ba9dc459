package io.demandfold.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A reply body read whole into memory, but never more than a given number of bytes: a reply that
 * declares a longer {@code Content-Length}, or sends more bytes than that, is cut (the connection
 * is closed) and fails with {@link TooLargeException}, so that a peer cannot make this instance
 * hold an unbounded reply.
 */
final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {
  /** A reply longer than the bound. */
  static final class TooLargeException extends IOException {
    private static final long serialVersionUID = 1L;

    TooLargeException(String message) {
      super(message);
    }
  }

  private final long max;
  private final long declared;
  private final CompletableFuture<byte[]> body = new CompletableFuture<>();
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private Flow.Subscription subscription;
  private long read;

  private BoundedBody(long max, long declared) {
    this.max = max;
    this.declared = declared;
  }

  /** A body handler that reads at most {@code max} bytes of each reply. */
  static HttpResponse.BodyHandler<byte[]> atMost(long max) {
    if (max < 0) {
      throw new IllegalArgumentException("max must be >= 0, was " + max);
    }
    return info ->
        new BoundedBody(max, info.headers().firstValueAsLong("Content-Length").orElse(-1));
  }

  @Override
  public CompletionStage<byte[]> getBody() {
    return body;
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    if (declared > max) {
      tooLarge("declares " + declared + " bytes");
      return;
    }
    s.request(Long.MAX_VALUE);
  }

  @Override
  public void onNext(List<ByteBuffer> buffers) {
    if (body.isDone()) {
      return;
    }
    for (ByteBuffer b : buffers) {
      read += b.remaining();
      if (read > max) {
        tooLarge("sent more than that");
        return;
      }
      byte[] chunk = new byte[b.remaining()];
      b.get(chunk);
      bytes.write(chunk, 0, chunk.length);
    }
  }

  private void tooLarge(String what) {
    subscription.cancel();
    body.completeExceptionally(
        new TooLargeException("reply larger than " + max + " bytes (it " + what + ")"));
  }

  @Override
  public void onError(Throwable t) {
    body.completeExceptionally(t);
  }

  @Override
  public void onComplete() {
    body.complete(bytes.toByteArray());
  }
}
