package io.demandfold.local;

import java.nio.file.Path;
import java.time.Duration;
import org.slf4j.LoggerFactory;

/**
 * The lifecycle {@link KafkaBroker} and {@link EtcdServer} share: one child process at a time,
 * started in the data directory and waited for until it serves, stopped (SIGTERM, then SIGKILL
 * after 20 s) or killed, started again on the same ports and data, and closed for good (the data
 * directory deleted when it is a temporary one). A subclass says how to prepare the first start,
 * how to launch the process and when it serves.
 *
 * @param <S> the service itself, which {@link #start()} and {@link #restart()} return
 */
abstract class LocalService<S extends LocalService<S>> implements AutoCloseable {
  private static final Duration STOP_GRACE = Duration.ofSeconds(20);
  private static final int TAIL_LINES = 30;

  private final String name;
  private final DataDir dataDir;
  private final String logFileName;
  private final Duration startTimeout;
  private boolean closed;
  private ChildProcess process;

  /**
   * @param name the service in messages, e.g. {@code "etcd"}
   * @param logFileName the file in the data directory that the process's output is appended to
   */
  LocalService(String name, DataDir dataDir, String logFileName, Duration startTimeout) {
    this.name = name;
    this.dataDir = dataDir;
    this.logFileName = logFileName;
    this.startTimeout = startTimeout;
  }

  /** Before every start: the first one picks the ports and writes what the process reads. */
  abstract void prepare();

  /** Starts the process. */
  abstract ChildProcess launch();

  /**
   * Returns once {@code process} serves; throws a {@link #failure} when it exits first or is not
   * ready by {@code deadline} ({@link System#nanoTime()}).
   */
  abstract void awaitReady(ChildProcess process, long deadline);

  /** Where clients reach the service, for messages. */
  abstract String address();

  abstract S self();

  /**
   * Starts the service and waits until it serves; the first start picks the ports.
   *
   * @throws ServiceStartException when it exits or is not ready within the start timeout
   */
  public synchronized S start() {
    if (closed) {
      throw new IllegalStateException("this " + name + " was closed");
    }
    if (isRunning()) {
      throw new IllegalStateException("already running on " + address());
    }
    long started = System.nanoTime();
    prepare();
    process = launch();
    try {
      awaitReady(process, started + startTimeout.toNanos());
    } catch (RuntimeException e) {
      process.kill();
      throw e;
    }
    LoggerFactory.getLogger(getClass())
        .info(
            "{} ready at {} in {} ms (pid {}, log {})",
            name,
            address(),
            Duration.ofNanos(System.nanoTime() - started).toMillis(),
            process.pid(),
            logFile());
    return self();
  }

  /** Stops with SIGTERM, then SIGKILL after 20 s; does nothing when not running. */
  public synchronized void stop() {
    if (isRunning()) {
      process.stop(STOP_GRACE);
    }
  }

  /** Kills with SIGKILL at once (a crash, for fault tests); does nothing when not running. */
  public synchronized void kill() {
    if (isRunning()) {
      process.kill();
    }
  }

  /** Stops the service when it runs, then starts it again on the same ports and data. */
  public synchronized S restart() {
    stop();
    return start();
  }

  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** The process id of the process started last, alive or not. */
  public synchronized long pid() {
    if (process == null) {
      throw new IllegalStateException(name + " was never started");
    }
    return process.pid();
  }

  /**
   * The exit status of the process started last, once it has exited: 128 plus the signal's number
   * when a signal ended it, so 143 after {@link #stop()}'s SIGTERM and 137 after a SIGKILL.
   *
   * @throws IllegalStateException when it was never started or still runs
   */
  public synchronized int exitStatus() {
    if (process == null || process.isAlive()) {
      throw new IllegalStateException(name + (process == null ? " was never started" : " runs"));
    }
    return process.exitValue();
  }

  public Path dataDir() {
    return dataDir.path;
  }

  /** The file the process's output is appended to. */
  public Path logFile() {
    return dataDir().resolve(logFileName);
  }

  /** Stops the service and deletes the data directory when it is a temporary one. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      stop();
    } finally {
      dataDir.deleteIfOwned();
    }
  }

  /** A failed start: {@code problem} and the last lines of the log file. */
  ServiceStartException failure(String problem) {
    return new ServiceStartException(
        name
            + " "
            + problem
            + "; last lines of "
            + logFile()
            + ":\n"
            + ChildProcess.tail(logFile(), TAIL_LINES));
  }

  Duration startTimeout() {
    return startTimeout;
  }

  /** {@code timeout}, when positive; builders check their start timeouts with it. */
  static Duration requirePositive(Duration timeout, String name) {
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, got " + timeout);
    }
    return timeout;
  }
}
