package io.demandfold.local;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

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
 * <p>{@link #start()} returns once {@code /health} reports healthy (with TLS: once the client port
 * accepts connections). The binary is {@code etcd} on the {@code PATH} (or {@code /usr/bin/etcd});
 * its output is appended to {@link #logFile()} in the data directory.
 */
public final class EtcdServer extends LocalService<EtcdServer> {
  private final EtcdCommand command;
  private int clientPort;
  private int peerPort;

  private EtcdServer(Builder b, EtcdCommand command) {
    super("etcd", DataDir.of(b.dataDir, "demandfold-etcd-"), "etcd.log", b.startTimeout);
    this.command = command;
  }

  public static Builder builder() {
    return new Builder();
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

  @Override
  void prepare() {
    if (clientPort == 0) {
      clientPort = FreePorts.next();
      peerPort = FreePorts.next();
    }
  }

  @Override
  ChildProcess launch() {
    String peerUrl = "http://" + FreePorts.LOOPBACK.getHostAddress() + ":" + peerPort;
    List<String> args = command.arguments(dataDir().resolve("etcd-data"), endpoint(), peerUrl);
    return ChildProcess.start("etcd", args, dataDir(), logFile());
  }

  /** Until {@code /health} reports healthy; with TLS, until the client port accepts connections. */
  @Override
  void awaitReady(ChildProcess process, long deadline) {
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
                + startTimeout().toSeconds()
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

  @Override
  String address() {
    return endpoint();
  }

  @Override
  EtcdServer self() {
    return this;
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
      this.startTimeout = requirePositive(timeout, "startTimeout");
      return this;
    }

    /**
     * @throws ServiceStartException when no etcd binary is found (the message says how to install)
     */
    public EtcdServer build() {
      // the binary is looked for before a data directory is made
      EtcdCommand command =
          new EtcdCommand(
              binary != null ? EtcdCommand.requireExecutable(binary) : EtcdCommand.locate(), tls);
      return new EtcdServer(this, command);
    }
  }
}
