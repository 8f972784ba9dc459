package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.local.EtcdServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Takes a snapshot of a local {@link EtcdServer} with {@code etcdctl} and restores it later in
 * place: etcd stopped, its data directory replaced by the snapshot restored for the same member
 * (same name, peer URL and cluster token, hence the same cluster id), started again on the same
 * ports; what etcd acknowledged after the snapshot is lost, its revision goes back. The way {@code
 * EtcdLostWritesIT} restores the etcd of its services.
 */
final class EtcdRestore {
  private EtcdRestore() {}

  /** Saves a snapshot of {@code etcd} to a new temporary file and returns it. */
  static Path save(EtcdServer etcd) throws Exception {
    Path snapshot = Files.createTempDirectory("demandfold-etcd-snapshot-").resolve("snap.db");
    etcdctl(etcd, "snapshot", "save", snapshot.toString());
    return snapshot;
  }

  /**
   * Stops {@code etcd}, replaces its data with {@code snapshot} and starts it again; deletes the
   * snapshot.
   */
  static void restore(EtcdServer etcd, Path snapshot) throws Exception {
    String members = etcdctl(etcd, "member", "list", "-w", "json");
    Matcher m = Pattern.compile("\"peerURLs\":\\[\"([^\"]+)\"").matcher(members);
    assertThat(m.find()).as("a peer URL in %s", members).isTrue();
    String peer = m.group(1);
    etcd.stop();
    Path data = deleteData(etcd);
    run(
        List.of(
            "etcdctl",
            "snapshot",
            "restore",
            snapshot.toString(),
            "--name",
            "n1",
            "--data-dir",
            data.toString(),
            "--initial-cluster",
            "n1=" + peer,
            "--initial-advertise-peer-urls",
            peer));
    Files.delete(snapshot);
    Files.delete(snapshot.getParent());
    etcd.start();
  }

  /** Deletes the data directory of the stopped {@code etcd} (a wipe); returns it. */
  static Path deleteData(EtcdServer etcd) throws Exception {
    Path data = etcd.dataDir().resolve("etcd-data");
    try (Stream<Path> files = Files.walk(data)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
    return data;
  }

  private static String etcdctl(EtcdServer etcd, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("etcdctl", "--endpoints", etcd.endpoint()));
    command.addAll(List.of(args));
    return run(command);
  }

  private static String run(List<String> command) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("ETCDCTL_API", "3");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s ends", command).isTrue();
    assertThat(p.exitValue()).as("%s: %s", command, out).isZero();
    return out;
  }
}
