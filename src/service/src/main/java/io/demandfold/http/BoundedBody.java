package io.demandfold.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A reply body read whole into memory, but never more than a given number of bytes, and never more
 * than what is left of a {@link Budget} shared by the replies of one request to several peers: a
 * reply that declares a longer {@code Content-Length}, or sends more bytes than that, is cut (the
 * connection is closed) and fails with {@link TooLargeException}, so that peers cannot make this
 * instance hold unbounded replies; {@link Budget#close} cuts every reply not yet whole.
 */
final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {
  /** A reply longer than the bound. */
  static final class TooLargeException extends IOException {
    private static final long serialVersionUID = 1L;

    TooLargeException(String message) {
      super(message);
    }
  }

  /** What the replies of one request may take together; closed when the request stops reading. */
  static final class Budget {
    private final long total;
    private final AtomicLong left;
    private final Set<BoundedBody> reading = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    Budget(long total) {
      this.total = total;
      this.left = new AtomicLong(total);
    }

    /** Cuts every reply not yet whole; later ones are cut as they begin. */
    void close() {
      closed = true;
      reading.forEach(b -> b.cut(new IOException("cut: the request stopped reading replies")));
    }
  }

  private final long max;
  private final long declared;
  private final Budget budget;
  private final CompletableFuture<byte[]> body = new CompletableFuture<>();
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private volatile Flow.Subscription subscription;
  private long read;

  private BoundedBody(long max, long declared, Budget budget) {
    this.max = max;
    this.declared = declared;
    this.budget = budget;
  }

  /** A body handler that reads at most {@code max} bytes of each reply. */
  static HttpResponse.BodyHandler<byte[]> atMost(long max) {
    return atMost(max, new Budget(Long.MAX_VALUE));
  }

  /**
   * A body handler that reads at most {@code max} bytes of each reply, and at most what is left of
   * {@code budget}.
   */
  static HttpResponse.BodyHandler<byte[]> atMost(long max, Budget budget) {
    if (max < 0) {
      throw new IllegalArgumentException("max must be >= 0, was " + max);
    }
    return info ->
        new BoundedBody(max, info.headers().firstValueAsLong("Content-Length").orElse(-1), budget);
  }

  @Override
  public CompletionStage<byte[]> getBody() {
    return body;
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    budget.reading.add(this);
    if (budget.closed) {
      cut(new IOException("cut: the request stopped reading replies"));
      return;
    }
    if (declared > max) {
      tooLarge("reply larger than " + max + " bytes (it declares " + declared + " bytes)");
      return;
    }
    if (declared > budget.left.get()) {
      tooLarge(together());
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
        tooLarge("reply larger than " + max + " bytes (it sent more than that)");
        return;
      }
      if (budget.left.addAndGet(-b.remaining()) < 0) {
        tooLarge(together());
        return;
      }
      byte[] chunk = new byte[b.remaining()];
      b.get(chunk);
      bytes.write(chunk, 0, chunk.length);
    }
  }

  private String together() {
    return "replies larger than " + budget.total + " bytes together (the bound of one request)";
  }

  private void tooLarge(String message) {
    cut(new TooLargeException(message));
  }

  private void cut(IOException why) {
    Flow.Subscription s = subscription;
    if (s != null) {
      s.cancel();
    }
    body.completeExceptionally(why);
    budget.reading.remove(this);
  }

  @Override
  public void onError(Throwable t) {
    body.completeExceptionally(t);
    budget.reading.remove(this);
  }

  @Override
  public void onComplete() {
    body.complete(bytes.toByteArray());
    budget.reading.remove(this);
  }
}
