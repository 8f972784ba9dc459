package io.demandfold.local;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line of a single-member etcd on loopback, and where its binary is. */
record EtcdCommand(Path binary, EtcdCommand.Tls tls) {
  static final String INSTALL_HINT =
      "install it with `apt-get install -y etcd-server` (or run scripts/setup)";
  private static final Path FALLBACK_BINARY = Path.of("/usr/bin/etcd");

  /** TLS on the client listener. */
  record Tls(Path certFile, Path keyFile, Path trustedCaFile, boolean clientCertAuth) {}

  /** {@code etcd} on the {@code PATH}, else {@code /usr/bin/etcd}. */
  static Path locate() {
    return locate(System.getenv("PATH"), FALLBACK_BINARY);
  }

  /** The first executable {@code etcd} on {@code pathVariable}, else {@code fallback}. */
  static Path locate(String pathVariable, Path fallback) {
    if (pathVariable != null) {
      for (String entry : pathVariable.split(File.pathSeparator)) {
        if (!entry.isEmpty() && isExecutable(Path.of(entry, "etcd"))) {
          return Path.of(entry, "etcd");
        }
      }
    }
    if (isExecutable(fallback)) {
      return fallback;
    }
    throw new ServiceStartException(
        "etcd is not installed (not on the PATH, not at " + fallback + "): " + INSTALL_HINT);
  }

  List<String> arguments(Path dataDir, String clientUrl, String peerUrl) {
    List<String> c = new ArrayList<>();
    c.add(binary.toString());
    c.addAll(List.of("--name", "n1", "--data-dir", dataDir.toString()));
    c.addAll(List.of("--listen-client-urls", clientUrl, "--advertise-client-urls", clientUrl));
    c.addAll(List.of("--listen-peer-urls", peerUrl, "--initial-advertise-peer-urls", peerUrl));
    c.addAll(List.of("--initial-cluster", "n1=" + peerUrl, "--initial-cluster-state", "new"));
    c.addAll(List.of("--logger", "zap", "--log-level", "warn"));
    // every mirrored write is a new revision; without compaction the history fills the backend
    c.addAll(List.of("--auto-compaction-mode", "periodic", "--auto-compaction-retention", "1m"));
    // a minute of history at the bench's write rates takes more than the default 2 GiB quota;
    // 8 GiB is etcd's suggested largest (the file grows only as far as it is used)
    c.addAll(List.of("--quota-backend-bytes", Long.toString(8L << 30)));
    if (tls != null) {
      c.addAll(List.of("--cert-file", tls.certFile.toString()));
      c.addAll(List.of("--key-file", tls.keyFile.toString()));
      if (tls.trustedCaFile != null) {
        c.addAll(List.of("--trusted-ca-file", tls.trustedCaFile.toString()));
      }
      if (tls.clientCertAuth) {
        c.add("--client-cert-auth");
      }
    }
    return c;
  }

  /** {@code binary} when it is an executable file, else an exception saying how to install etcd. */
  static Path requireExecutable(Path binary) {
    if (!isExecutable(binary)) {
      throw new ServiceStartException(binary + " is not an executable etcd: " + INSTALL_HINT);
    }
    return binary;
  }

  private static boolean isExecutable(Path file) {
    return Files.isRegularFile(file) && Files.isExecutable(file);
  }
}
