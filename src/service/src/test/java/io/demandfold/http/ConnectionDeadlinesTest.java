package io.demandfold.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.junit.jupiter.api.Test;

/**
 * The limits of a connection's time on a clock the test moves: a request must arrive whole within
 * its limit of its first byte (of the accept, for the first), a reply be written within its limit,
 * and a connection between requests or with a handler is left alone.
 */
class ConnectionDeadlinesTest {
  private static final long REQUEST_MS = 10_000;
  private static final long REPLY_MS = 30_000;

  private final AtomicLong nowMs = new AtomicLong(1_000_000);
  private final ConnectionDeadlines deadlines =
      new ConnectionDeadlines(
          REQUEST_MS, REPLY_MS, () -> TimeUnit.MILLISECONDS.toNanos(nowMs.get()));

  /** A connection whose bytes received the test sets and whose closing it sees. */
  private static final class Fake {
    final AtomicLong bytesIn = new AtomicLong();
    final AtomicBoolean closed = new AtomicBoolean();
    final Connection connection;

    Fake() {
      EndPoint endPoint =
          (EndPoint)
              Proxy.newProxyInstance(
                  EndPoint.class.getClassLoader(),
                  new Class<?>[] {EndPoint.class},
                  (p, m, args) -> {
                    if (m.getName().equals("close")) {
                      closed.set(true);
                    }
                    return null;
                  });
      connection =
          (Connection)
              Proxy.newProxyInstance(
                  Connection.class.getClassLoader(),
                  new Class<?>[] {Connection.class},
                  (p, m, args) -> {
                    switch (m.getName()) {
                      case "getBytesIn":
                        return bytesIn.get();
                      case "getEndPoint":
                        return endPoint;
                      case "hashCode":
                        return System.identityHashCode(p);
                      case "equals":
                        return p == args[0];
                      default:
                        return null;
                    }
                  });
    }
  }

  private Fake open() {
    Fake f = new Fake();
    deadlines.onOpened(f.connection);
    return f;
  }

  private void at(long ms) {
    nowMs.addAndGet(ms);
    deadlines.sweep(TimeUnit.MILLISECONDS.toNanos(nowMs.get()));
  }

  @Test
  void shouldCloseAConnectionWhoseFirstRequestIsNotWholeWithinTheLimitOfTheAccept() {
    Fake silent = open();
    Fake trickling = open();
    for (int s = 1; s < REQUEST_MS / 1000; s++) {
      trickling.bytesIn.incrementAndGet();
      at(1000);
    }
    at(999);
    assertThat(silent.closed).as("9.999 s after the accept").isFalse();
    assertThat(trickling.closed).isFalse();
    at(1);
    assertThat(silent.closed).as("10 s after the accept").isTrue();
    assertThat(trickling.closed).as("a byte a second is no excuse").isTrue();
    assertThat(deadlines.closed()).isEqualTo(2);
  }

  @Test
  void shouldGiveTheHandlerItsTimeAndTheReplyItsLimit() {
    Fake c = open();
    at(1000);
    deadlines.answering(c.connection);
    at(100_000);
    assertThat(c.closed).as("a handler may wait (for peers, for etcd)").isFalse();
    deadlines.writing(c.connection);
    at(REPLY_MS - 1);
    assertThat(c.closed).isFalse();
    at(1);
    assertThat(c.closed).as("a reply not written within its limit").isTrue();
  }

  @Test
  void shouldTimeTheNextRequestFromItsFirstByteNotFromTheLastReply() {
    Fake c = open();
    c.bytesIn.set(80);
    deadlines.answering(c.connection);
    deadlines.writing(c.connection);
    deadlines.answered(c.connection);
    at(60_000);
    assertThat(c.closed).as("between requests: Jetty's idle timeout decides").isFalse();
    c.bytesIn.incrementAndGet();
    at(1);
    at(REQUEST_MS - 1);
    assertThat(c.closed).isFalse();
    at(1);
    assertThat(c.closed).as("the next request not whole within its limit").isTrue();
  }

  @Test
  void shouldForgetAClosedConnection() {
    Fake c = open();
    deadlines.onClosed(c.connection);
    at(REQUEST_MS * 2);
    assertThat(c.closed).isFalse();
    assertThat(deadlines.closed()).isZero();
  }
}
