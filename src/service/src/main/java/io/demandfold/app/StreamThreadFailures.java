package io.demandfold.app;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.streams.errors.LockException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.errors.TaskCorruptedException;
import org.apache.kafka.streams.errors.TaskMigratedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a stream thread's failure does: a transient one (Kafka's {@link RetriableException}, such as
 * a broker away for longer than {@code task.timeout.ms}, or a task Kafka Streams itself recovers)
 * replaces the thread, at most {@link #REPLACEMENTS} times within {@link #WINDOW}; anything else
 * ends the instance, with the reason in the log and in {@link Fatal#exitStatus()}: {@link
 * #EXIT_FATAL} for a failure that retrying cannot mend (fenced, refused credentials or rights, an
 * unsupported broker, an {@link Error}, a bug in our code), {@link #EXIT_REPEATED} for transient
 * failures past the bound. The cause chain is read whole: a fatal cause anywhere wins.
 */
public final class StreamThreadFailures implements StreamsUncaughtExceptionHandler {
  private static final Logger log = LoggerFactory.getLogger(StreamThreadFailures.class);

  /** Thread replacements allowed within {@link #WINDOW}; one more ends the instance. */
  static final int REPLACEMENTS = 5;

  static final Duration WINDOW = Duration.ofMinutes(10);

  /** Exit status of {@code run} after a failure that retrying cannot mend. */
  public static final int EXIT_FATAL = 3;

  /** Exit status of {@code run} after more than {@link #REPLACEMENTS} transient failures. */
  public static final int EXIT_REPEATED = 4;

  private static final int MAX_CAUSES = 32;

  /** The failure that ends the instance: why, and the exit status it asks for. */
  static final class Fatal extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int exitStatus;

    Fatal(String reason, int exitStatus, Throwable cause) {
      super(reason + ": " + messages(cause), cause);
      this.exitStatus = exitStatus;
    }

    /** The distinct messages of a cause chain, outermost first, so the exit says what broke. */
    private static String messages(Throwable cause) {
      StringBuilder out = new StringBuilder();
      java.util.Set<String> seen = new java.util.HashSet<>();
      int depth = 0;
      for (Throwable t = cause; t != null && depth < MAX_CAUSES; t = t.getCause(), depth++) {
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        if (seen.add(m) && out.length() < 2000) {
          out.append(out.length() == 0 ? "" : "; caused by: ").append(m);
        }
      }
      return out.toString();
    }

    int exitStatus() {
      return exitStatus;
    }
  }

  private final Consumer<Fatal> onFatal;
  private final Runnable onReplaced;
  private final LongSupplier clockMs;
  private final Deque<Long> replacedAtMs = new ArrayDeque<>();

  /**
   * @param onFatal told of the failure that ends the instance, before Kafka Streams shuts it down
   */
  StreamThreadFailures(Consumer<Fatal> onFatal, Runnable onReplaced) {
    this(onFatal, onReplaced, System::currentTimeMillis);
  }

  StreamThreadFailures(Consumer<Fatal> onFatal, LongSupplier clockMs) {
    this(onFatal, () -> {}, clockMs);
  }

  /**
   * @param onReplaced told of each thread replaced
   */
  StreamThreadFailures(Consumer<Fatal> onFatal, Runnable onReplaced, LongSupplier clockMs) {
    this.onFatal = onFatal;
    this.onReplaced = onReplaced;
    this.clockMs = clockMs;
  }

  /**
   * Why {@code e} cannot be mended by a new thread, or {@code null} when it is transient.
   * Transient: a {@link RetriableException}, {@link InvalidTxnStateException} (an aborted
   * transaction's commit), {@link TaskCorruptedException}, {@link TaskMigratedException} or {@link
   * LockException} in the chain, with nothing fatal in it.
   */
  static String fatalReason(Throwable e) {
    boolean transientCause = false;
    int depth = 0;
    for (Throwable c = e; c != null && depth < MAX_CAUSES; c = c.getCause(), depth++) {
      if (c instanceof Error) {
        return "a JVM error (" + c.getClass().getSimpleName() + ")";
      }
      if (c instanceof ProducerFencedException || c instanceof InvalidProducerEpochException) {
        return "the transactional producer was fenced (" + c.getClass().getSimpleName() + ")";
      }
      if (c instanceof AuthenticationException) {
        return "Kafka refused the credentials (" + c.getClass().getSimpleName() + ")";
      }
      if (c instanceof AuthorizationException) {
        return "Kafka denied this principal an operation (" + c.getClass().getSimpleName() + ")";
      }
      if (c instanceof UnsupportedVersionException) {
        return "the broker does not support a request (UnsupportedVersionException)";
      }
      transientCause |=
          c instanceof RetriableException
              // the transaction coordinator aborted the open transaction (transaction.timeout.ms
              // ran out while a broker was away) and a broker answers the commit with
              // INVALID_TXN_STATE instead of INVALID_PRODUCER_EPOCH (KAFKA-19690): nothing of the
              // transaction was committed, and a new thread starts a new one from the committed
              // offsets
              || c instanceof InvalidTxnStateException
              || c instanceof TaskCorruptedException
              || c instanceof TaskMigratedException
              || c instanceof LockException;
    }
    if (transientCause) {
      return null;
    }
    Throwable root = e;
    for (depth = 0; root.getCause() != null && depth < MAX_CAUSES; depth++) {
      root = root.getCause();
    }
    return "a failure not known to be transient, likely a bug (" + root.getClass().getName() + ")";
  }

  @Override
  public StreamThreadExceptionResponse handle(Throwable e) {
    String fatal = fatalReason(e);
    if (fatal == null) {
      int replaced = replaced();
      if (replaced <= REPLACEMENTS) {
        log.warn(
            "stream thread failed transiently; replacing it ({} of {} replacements within {} min)",
            replaced,
            REPLACEMENTS,
            WINDOW.toMinutes(),
            e);
        onReplaced.run();
        return StreamThreadExceptionResponse.REPLACE_THREAD;
      }
      return end(
          "transient failures repeated: "
              + replaced
              + " within "
              + WINDOW.toMinutes()
              + " min, more than "
              + REPLACEMENTS,
          EXIT_REPEATED,
          e);
    }
    return end(fatal, EXIT_FATAL, e);
  }

  private StreamThreadExceptionResponse end(String reason, int exitStatus, Throwable e) {
    Fatal f = new Fatal(reason, exitStatus, e);
    onFatal.accept(f);
    log.error(
        "stream thread failed: {}; shutting this instance down (exit status {})",
        reason,
        exitStatus,
        e);
    return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
  }

  /** Counts one more transient failure; returns those within the window, this one included. */
  private synchronized int replaced() {
    long now = clockMs.getAsLong();
    while (!replacedAtMs.isEmpty() && now - replacedAtMs.peekFirst() >= WINDOW.toMillis()) {
      replacedAtMs.removeFirst();
    }
    replacedAtMs.addLast(now);
    return replacedAtMs.size();
  }

  /** The exit status of {@code run} after {@code failure} ended the instance. */
  public static int exitStatus(Throwable failure) {
    return failure instanceof Fatal ? ((Fatal) failure).exitStatus() : 1;
  }
}
