package io.demandfold.http;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.eclipse.jetty.io.Connection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The limits of a connection's time that Jetty's idle timeout cannot express, since it counts only
 * silence and a sender that trickles a byte every few seconds is never silent: a request must
 * arrive whole (line and headers) within {@link HttpLimits#REQUEST_SECONDS} of its first byte (of
 * the accept, for a connection's first request), and its reply must be written within {@link
 * HttpLimits#RESPONSE_SECONDS} once it begins; a connection over either is closed. One thread looks
 * at every open connection every {@link #SWEEP_MS} ms; reading and writing hold no thread.
 */
final class ConnectionDeadlines implements Connection.Listener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ConnectionDeadlines.class);
  static final long SWEEP_MS = 250;

  private enum Phase {
    /** A request is arriving. */
    READING,
    /** The request is with a handler. */
    ANSWERING,
    /** Its reply is being written. */
    WRITING,
    /** Between requests: Jetty's idle timeout applies. */
    IDLE
  }

  /** Where one connection is, and since when. */
  private static final class Watch {
    private Phase phase = Phase.READING;
    private long sinceNanos;
    private long bytesInAtIdle;

    Watch(long nowNanos) {
      sinceNanos = nowNanos;
    }

    synchronized void enter(Phase next, long nowNanos, long bytesIn) {
      phase = next;
      sinceNanos = nowNanos;
      bytesInAtIdle = bytesIn;
    }

    /** The limit this connection is over now, or {@code null}. */
    synchronized String overdue(long nowNanos, long bytesIn, long requestNanos, long replyNanos) {
      switch (phase) {
        case IDLE:
          if (bytesIn > bytesInAtIdle) {
            phase = Phase.READING;
            sinceNanos = nowNanos;
          }
          return null;
        case READING:
          return nowNanos - sinceNanos >= requestNanos ? "its request is not whole" : null;
        case WRITING:
          return nowNanos - sinceNanos >= replyNanos ? "its reply is not written" : null;
        default:
          return null;
      }
    }
  }

  private final Map<Connection, Watch> open = new ConcurrentHashMap<>();
  private final long requestNanos;
  private final long replyNanos;
  private final LongSupplier clock;
  private final AtomicLong closed = new AtomicLong();
  private volatile ScheduledExecutorService sweeper;

  /** Deadlines on {@code clock} that only {@link #sweep(long)} checks until {@link #start}. */
  ConnectionDeadlines(long requestMs, long replyMs, LongSupplier clock) {
    this.requestNanos = TimeUnit.MILLISECONDS.toNanos(requestMs);
    this.replyNanos = TimeUnit.MILLISECONDS.toNanos(replyMs);
    this.clock = clock;
  }

  /** Deadlines on {@link System#nanoTime}, checked by a thread named {@code threadName}. */
  static ConnectionDeadlines started(String threadName, long requestMs, long replyMs) {
    ConnectionDeadlines d = new ConnectionDeadlines(requestMs, replyMs, System::nanoTime);
    d.start(threadName);
    return d;
  }

  private void start(String threadName) {
    sweeper =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
    sweeper.scheduleWithFixedDelay(
        () -> sweep(clock.getAsLong()), SWEEP_MS, SWEEP_MS, TimeUnit.MILLISECONDS);
  }

  @Override
  public void onOpened(Connection c) {
    open.put(c, new Watch(clock.getAsLong()));
  }

  @Override
  public void onClosed(Connection c) {
    open.remove(c);
  }

  /** The request of {@code c} has arrived whole and is with a handler. */
  void answering(Connection c) {
    enter(c, Phase.ANSWERING);
  }

  /** The reply of {@code c} begins to be written. */
  void writing(Connection c) {
    enter(c, Phase.WRITING);
  }

  /** The reply of {@code c} is written (or failed): the connection waits for its next request. */
  void answered(Connection c) {
    enter(c, Phase.IDLE);
  }

  /** Connections closed for being over a limit, since the start. */
  long closed() {
    return closed.get();
  }

  private void enter(Connection c, Phase phase) {
    Watch w = open.get(c);
    if (w != null) {
      w.enter(phase, clock.getAsLong(), c.getBytesIn());
    }
  }

  /** Closes every connection over a limit at {@code now} (nanoseconds of the clock). */
  void sweep(long now) {
    open.forEach(
        (c, w) -> {
          try {
            String why = w.overdue(now, c.getBytesIn(), requestNanos, replyNanos);
            if (why != null) {
              open.remove(c);
              closed.incrementAndGet();
              log.debug(
                  "http: closing {}: {} in time", c.getEndPoint().getRemoteSocketAddress(), why);
              c.getEndPoint().close();
            }
          } catch (RuntimeException e) {
            log.warn("http: cannot check the deadlines of connection {}", c, e);
          }
        });
  }

  @Override
  public void close() {
    if (sweeper != null) {
      sweeper.shutdownNow();
    }
  }
}
