package io.demandfold.it;

import io.demandfold.local.FreePorts;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.maintenance.StatusResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A real etcd cluster of several members, each a {@code /usr/bin/etcd} child process on loopback
 * with its own client and peer ports ({@code --initial-cluster} naming all of them). Members start,
 * are SIGKILLed and rejoin ({@code --initial-cluster-state existing}, same ports and data) one by
 * one. The member left running after the others were killed has no leader and still answers
 * clients, which is how a member cut off from its peers looks to a client (a member that never
 * joined serves no client at all). A cluster {@link #withPeerProxies with peer proxies} fronts
 * every member's peer port with a {@link PeerProxy}, so that {@link #cut} can cut a member off from
 * its peers while its clients still reach it, and {@link #heal} undo it.
 *
 * <pre>{@code
 * try (EtcdCluster etcd = EtcdCluster.of(3).startAll()) {
 *   int leader = etcd.leader();
 *   etcd.kill(leader);
 *   etcd.start(leader); // rejoins
 * }
 * }</pre>
 */
final class EtcdCluster implements AutoCloseable {
  private static final Duration READY = Duration.ofSeconds(30);
  private static final String HOST = "127.0.0.1";

  private final Path dir;
  private final int[] clientPorts;
  private final int[] peerPorts;
  private final Process[] processes;
  private final boolean[] started;
  private final PeerProxy[] proxies;
  private final Set<Integer> cutMembers = ConcurrentHashMap.newKeySet();
  private final Set<String> cutIds = ConcurrentHashMap.newKeySet();

  private EtcdCluster(int members, boolean proxied) throws IOException {
    dir = Files.createTempDirectory("demandfold-etcd-cluster-");
    clientPorts = new int[members];
    peerPorts = new int[members];
    processes = new Process[members];
    started = new boolean[members];
    proxies = new PeerProxy[proxied ? members : 0];
    for (int i = 0; i < members; i++) {
      clientPorts[i] = FreePorts.next();
      peerPorts[i] = FreePorts.next();
    }
    for (int i = 0; i < proxies.length; i++) {
      int member = i;
      proxies[i] =
          new PeerProxy(
              new ServerSocket(0, 50, InetAddress.getByName(HOST)),
              peerPorts[i],
              from -> cutMembers.contains(member) || cutIds.contains(from));
    }
  }

  /** A cluster of {@code members} members, none started, with a {@link PeerProxy} each. */
  static EtcdCluster withPeerProxies(int members) {
    try {
      return new EtcdCluster(members, true);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Cuts member {@code i} off from its peers (needs peer proxies): every peer connection to it or
   * from it is dropped, now and until {@link #heal}; clients still reach it.
   */
  void cut(int i, Client client) throws Exception {
    if (proxies.length == 0) {
      throw new IllegalStateException("a cluster without peer proxies cannot be cut");
    }
    cutIds.add(memberId(i, client));
    cutMembers.add(i);
    for (PeerProxy p : proxies) {
      p.enforce();
    }
  }

  /** Lets member {@code i} reach its peers again. */
  void heal(int i, Client client) throws Exception {
    cutMembers.remove(i);
    cutIds.remove(memberId(i, client));
  }

  /** Member {@code i}'s id in hex, as etcd's peer requests name it in {@code X-Server-From}. */
  String memberId(int i, Client client) throws Exception {
    long id =
        client
            .getMaintenanceClient()
            .statusMember(endpoint(i))
            .get(5, TimeUnit.SECONDS)
            .getHeader()
            .getMemberId();
    return Long.toHexString(id);
  }

  /** A cluster of {@code members} members, none started. */
  static EtcdCluster of(int members) {
    try {
      return new EtcdCluster(members, false);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Starts every member and waits until the cluster has a leader; when that fails, stops what it
   * started (the caller has no cluster to close) and throws.
   */
  EtcdCluster startAll() throws Exception {
    try {
      for (int i = 0; i < size(); i++) {
        launch(i);
      }
      for (int i = 0; i < size(); i++) {
        awaitHealthy(i);
      }
      return this;
    } catch (Exception e) {
      try {
        close();
      } catch (Exception closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  /**
   * Starts member {@code i} without waiting; a member started before rejoins as an existing one.
   */
  void launch(int i) throws IOException {
    if (processes[i] != null && processes[i].isAlive()) {
      throw new IllegalStateException("member " + name(i) + " is running");
    }
    List<String> c = new ArrayList<>();
    c.add("/usr/bin/etcd");
    c.addAll(List.of("--name", name(i), "--data-dir", dir.resolve(name(i)).toString()));
    c.addAll(List.of("--listen-client-urls", endpoint(i), "--advertise-client-urls", endpoint(i)));
    c.addAll(List.of("--listen-peer-urls", "http://" + HOST + ":" + peerPorts[i]));
    c.addAll(List.of("--initial-advertise-peer-urls", peerUrl(i)));
    c.addAll(List.of("--initial-cluster", initialCluster()));
    c.addAll(List.of("--initial-cluster-state", started[i] ? "existing" : "new"));
    c.addAll(List.of("--initial-cluster-token", dir.getFileName().toString()));
    c.addAll(List.of("--logger", "zap", "--log-level", "warn"));
    processes[i] =
        new ProcessBuilder(c)
            .redirectErrorStream(true)
            .redirectOutput(
                ProcessBuilder.Redirect.appendTo(dir.resolve(name(i) + ".log").toFile()))
            .start();
    started[i] = true;
  }

  /** Starts (or restarts) member {@code i} and waits until it reports healthy. */
  void start(int i) throws Exception {
    launch(i);
    awaitHealthy(i);
  }

  /** SIGKILLs member {@code i}. */
  void kill(int i) throws InterruptedException {
    Process p = processes[i];
    if (p != null && p.isAlive()) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** The index of the current leader, as the first member that answers reports it. */
  int leader(Client client) throws Exception {
    for (int i = 0; i < size(); i++) {
      if (processes[i] == null || !processes[i].isAlive()) {
        continue;
      }
      StatusResponse s =
          client.getMaintenanceClient().statusMember(endpoint(i)).get(5, TimeUnit.SECONDS);
      for (int j = 0; j < size(); j++) {
        StatusResponse sj =
            client.getMaintenanceClient().statusMember(endpoint(j)).get(5, TimeUnit.SECONDS);
        if (sj.getHeader().getMemberId() == s.getLeader()) {
          return j;
        }
      }
    }
    throw new IllegalStateException("no member reports a leader");
  }

  int size() {
    return clientPorts.length;
  }

  String endpoint(int i) {
    return "http://" + HOST + ":" + clientPorts[i];
  }

  /** Every member's client URL, comma-separated, as {@code etcd.endpoints} takes them. */
  String endpoints() {
    return Stream.iterate(0, i -> i < size(), i -> i + 1)
        .map(this::endpoint)
        .collect(Collectors.joining(","));
  }

  private void awaitHealthy(int i) throws Exception {
    long deadline = System.nanoTime() + READY.toNanos();
    while (true) {
      if (!processes[i].isAlive()) {
        throw new IllegalStateException(
            "etcd member "
                + name(i)
                + " exited with "
                + processes[i].exitValue()
                + "; log "
                + log(i));
      }
      if (healthy(i)) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "etcd member " + name(i) + " not healthy within " + READY + "; log " + log(i));
      }
      Thread.sleep(100);
    }
  }

  private boolean healthy(int i) {
    try {
      HttpURLConnection c =
          (HttpURLConnection) URI.create(endpoint(i) + "/health").toURL().openConnection();
      c.setConnectTimeout(1000);
      c.setReadTimeout(2000);
      try {
        return c.getResponseCode() == 200
            && new String(
                    c.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                .contains("\"true\"");
      } finally {
        c.disconnect();
      }
    } catch (IOException e) {
      return false;
    }
  }

  private Path log(int i) {
    return dir.resolve(name(i) + ".log");
  }

  private String initialCluster() {
    return Stream.iterate(0, i -> i < size(), i -> i + 1)
        .map(i -> name(i) + "=" + peerUrl(i))
        .collect(Collectors.joining(","));
  }

  private static String name(int i) {
    return "e" + (i + 1);
  }

  /** The peer URL the members advertise: the proxy's, when there is one. */
  private String peerUrl(int i) {
    return "http://" + HOST + ":" + (proxies.length > 0 ? proxies[i].port() : peerPorts[i]);
  }

  /** Kills every member and deletes the data. */
  @Override
  public void close() throws Exception {
    for (int i = 0; i < size(); i++) {
      kill(i);
    }
    for (PeerProxy p : proxies) {
      p.close();
    }
    if (Files.exists(dir)) { // closed before (a failed startAll closes the cluster)
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
