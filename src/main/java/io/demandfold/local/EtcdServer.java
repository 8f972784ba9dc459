package io.demandfold.local;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-member etcd server running as a child process on 127.0.0.1, optionally with TLS on
 * the client listener.
 *
 * <pre>{@code
 * try (EtcdServer etcd = EtcdServer.builder().build().start()) {
 *   String endpoint = etcd.endpoint(); // "http://127.0.0.1:PORT"
 *   etcd.kill(); // SIGKILL, for fault tests
 *   etcd.restart(); // same ports and data
 * }
 * }</pre>
 *
 * <p>The binary is {@code etcd} on the {@code PATH} (or {@code /usr/bin/etcd}); its output is
 * appended to {@link #logFile()} in the data directory.
 */
public final class EtcdServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EtcdServer.class);
  private static final Duration STOP_GRACE = Duration.ofSeconds(20);
  private static final int TAIL_LINES = 30;

  private final DataDir dataDir;
  private final EtcdCommand command;
  private final Duration startTimeout;
  private int clientPort;
  private int peerPort;
  private boolean closed;
  private ChildProcess process;

  private EtcdServer(Builder b) {
    this.command =
        new EtcdCommand(
            b.binary != null ? EtcdCommand.requireExecutable(b.binary) : EtcdCommand.locate(),
            b.tls);
    this.dataDir = DataDir.of(b.dataDir, "demandfold-etcd-");
    this.startTimeout = b.startTimeout;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts etcd and waits until {@code /health} reports healthy (with TLS: until the client port
   * accepts connections); the first start picks the ports.
   *
   * @throws ServiceStartException when it exits or is not ready within the start timeout
   */
  public synchronized EtcdServer start() {
    if (closed) {
      throw new IllegalStateException("this etcd server was closed");
    }
    if (isRunning()) {
      throw new IllegalStateException("already running on " + endpoint());
    }
    long started = System.nanoTime();
    if (clientPort == 0) {
      clientPort = FreePorts.next();
      peerPort = FreePorts.next();
    }
    String peerUrl = "http://" + FreePorts.LOOPBACK.getHostAddress() + ":" + peerPort;
    List<String> args = command.arguments(dir().resolve("etcd-data"), endpoint(), peerUrl);
    process = ChildProcess.start("etcd", args, dir(), logFile());
    try {
      awaitReady(started + startTimeout.toNanos());
    } catch (RuntimeException e) {
      process.kill();
      throw e;
    }
    LOG.info(
        "etcd ready at {} in {} ms (pid {}, log {})",
        endpoint(),
        Duration.ofNanos(System.nanoTime() - started).toMillis(),
        process.pid(),
        logFile());
    return this;
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

  /** Stops etcd when it runs, then starts it again on the same ports and data. */
  public synchronized EtcdServer restart() {
    stop();
    return start();
  }

  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** The process id of the etcd started last, alive or not. */
  public synchronized long pid() {
    if (process == null) {
      throw new IllegalStateException("etcd was never started");
    }
    return process.pid();
  }

  /** {@code "http://127.0.0.1:PORT"} ({@code https} with TLS), fixed from the first start on. */
  public synchronized String endpoint() {
    if (clientPort == 0) {
      throw new IllegalStateException("etcd was never started");
    }
    return (command.tls() == null ? "http" : "https")
        + "://"
        + FreePorts.LOOPBACK.getHostAddress()
        + ":"
        + clientPort;
  }

  public Path dataDir() {
    return dir();
  }

  /** The file etcd's output is appended to. */
  public Path logFile() {
    return dir().resolve("etcd.log");
  }

  /** Stops etcd and deletes the data directory when it is a temporary one. */
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

  private Path dir() {
    return dataDir.path;
  }

  private void awaitReady(long deadline) {
    String problem = "no answer";
    while (true) {
      if (!process.isAlive()) {
        throw failure("exited with status " + process.exitValue() + " while starting");
      }
      if (System.nanoTime() - deadline > 0) {
        throw failure(
            "was not ready ("
                + problem
                + ") within "
                + startTimeout.toSeconds()
                + " s (pid "
                + process.pid()
                + ")");
      }
      if (command.tls() != null) {
        if (FreePorts.isListening(clientPort)) {
          return;
        }
        problem = "the client port does not accept connections";
      } else {
        problem = HealthCheck.problem(endpoint() + "/health");
        if (problem == null) {
          return;
        }
      }
      Pause.millis(100);
    }
  }

  private ServiceStartException failure(String problem) {
    return new ServiceStartException(
        "etcd "
            + problem
            + "; last lines of "
            + logFile()
            + ":\n"
            + ChildProcess.tail(logFile(), TAIL_LINES));
  }

  /** Settings of an etcd server; build with {@link EtcdServer#builder()}. */
  public static final class Builder {
    private Path dataDir;
    private Path binary;
    private EtcdCommand.Tls tls;
    private Duration startTimeout = Duration.ofSeconds(20);

    private Builder() {}

    /** Where data and log go; default a temporary directory deleted on close. */
    public Builder dataDir(Path dataDir) {
      this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
      return this;
    }

    /**
     * The etcd executable; default {@code etcd} on the {@code PATH}, else {@code /usr/bin/etcd}.
     */
    public Builder binary(Path binary) {
      this.binary = Objects.requireNonNull(binary, "binary");
      return this;
    }

    /**
     * Serves clients over TLS ({@code https} endpoint) with this certificate and key; {@code
     * trustedCaFile} (may be null, required when {@code clientCertAuth}) verifies client
     * certificates. etcd 3.4 demands a client certificate whenever a trusted CA file is given,
     * {@code clientCertAuth} or not.
     */
    public Builder tls(Path certFile, Path keyFile, Path trustedCaFile, boolean clientCertAuth) {
      Objects.requireNonNull(certFile, "certFile");
      Objects.requireNonNull(keyFile, "keyFile");
      if (clientCertAuth && trustedCaFile == null) {
        throw new IllegalArgumentException("clientCertAuth needs a trustedCaFile");
      }
      this.tls = new EtcdCommand.Tls(certFile, keyFile, trustedCaFile, clientCertAuth);
      return this;
    }

    /** How long a start may take until etcd serves; default 20 s. */
    public Builder startTimeout(Duration timeout) {
      if (timeout == null || timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("startTimeout must be positive, got " + timeout);
      }
      this.startTimeout = timeout;
      return this;
    }

    /**
     * @throws ServiceStartException when no etcd binary is found (the message says how to install)
     */
    public EtcdServer build() {
      return new EtcdServer(this);
    }
  }
}
