package io.demandfold.it;

import io.demandfold.local.FreePorts;
import io.demandfold.local.KafkaBroker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;

/**
 * A real Kafka cluster of three combined KRaft nodes (broker and controller each, static {@code
 * controller.quorum.voters} naming all three, one cluster id), each a {@link KafkaBroker} child JVM
 * on loopback, replicated as production runs it: replication factor 3 and {@code
 * min.insync.replicas} 2 by default and for the offsets and transaction logs. A node can be
 * SIGKILLed and restarted, or frozen ({@code SIGSTOP}) and thawed: to its peers and clients a
 * frozen node is a node cut off from the network, its connections open and silent.
 *
 * <pre>{@code
 * try (KafkaCluster kafka = KafkaCluster.start(3)) {
 *   kafka.freeze(1); // cut off
 *   kafka.thaw(1);
 * }
 * }</pre>
 */
final class KafkaCluster implements AutoCloseable {
  private static final String HOST = "127.0.0.1";

  private final List<KafkaBroker> nodes;
  private final boolean[] frozen;

  private KafkaCluster(List<KafkaBroker> nodes) {
    this.nodes = nodes;
    this.frozen = new boolean[nodes.size()];
  }

  /** Starts {@code size} nodes at once (none serves before a majority runs). */
  static KafkaCluster start(int size) {
    int[] ports = new int[2 * size];
    for (int i = 0; i < ports.length; i++) {
      ports[i] = FreePorts.next();
    }
    StringBuilder voters = new StringBuilder();
    for (int i = 0; i < size; i++) {
      voters.append(i == 0 ? "" : ",").append(i + 1).append('@').append(HOST).append(':');
      voters.append(ports[2 * i + 1]);
    }
    String clusterId = Uuid.randomUuid().toString();
    String rf = Integer.toString(Math.min(3, size));
    String minIsr = Integer.toString(Math.min(2, size));
    List<KafkaBroker> nodes = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      nodes.add(
          KafkaBroker.builder()
              .nodeId(i + 1)
              .clusterId(clusterId)
              .ports(ports[2 * i], ports[2 * i + 1])
              .heap("400m")
              .startTimeout(Duration.ofSeconds(120))
              .serverProperty("controller.quorum.voters", voters.toString())
              .serverProperty("default.replication.factor", rf)
              .serverProperty("min.insync.replicas", minIsr)
              .serverProperty("offsets.topic.replication.factor", rf)
              .serverProperty("transaction.state.log.replication.factor", rf)
              .serverProperty("transaction.state.log.min.isr", minIsr)
              .serverProperty("share.coordinator.state.topic.replication.factor", rf)
              .serverProperty("share.coordinator.state.topic.min.isr", minIsr)
              // a killed or frozen node is declared away after 3 s, as in the single-broker tests
              .serverProperty("broker.session.timeout.ms", "3000")
              .serverProperty("broker.heartbeat.interval.ms", "500")
              .build());
    }
    KafkaCluster cluster = new KafkaCluster(nodes);
    try {
      CompletableFuture.allOf(
              nodes.stream()
                  .map(n -> CompletableFuture.runAsync(n::start))
                  .toArray(CompletableFuture[]::new))
          .get(3, TimeUnit.MINUTES);
      return cluster;
    } catch (Exception e) {
      cluster.close();
      throw new IllegalStateException("the Kafka cluster did not start", e);
    }
  }

  int size() {
    return nodes.size();
  }

  KafkaBroker node(int i) {
    return nodes.get(i);
  }

  /** Every node's client address, comma-separated, as {@code bootstrap.servers} takes them. */
  String bootstrapServers() {
    return nodes.stream().map(KafkaBroker::bootstrapServers).collect(Collectors.joining(","));
  }

  /** SIGSTOPs node {@code i}: its sockets stay open and nothing answers on them. */
  synchronized void freeze(int i) {
    signal("STOP", nodes.get(i).pid());
    frozen[i] = true;
  }

  /** SIGCONTs node {@code i}. */
  synchronized void thaw(int i) {
    signal("CONT", nodes.get(i).pid());
    frozen[i] = false;
  }

  private static void signal(String name, long pid) {
    try {
      Process p = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("kill -" + name + " " + pid + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  @Override
  public synchronized void close() {
    for (int i = 0; i < nodes.size(); i++) {
      if (frozen[i] && nodes.get(i).isRunning()) {
        thaw(i);
      }
    }
    // SIGKILL first: a node whose peers are gone waits 20 s in a controlled shutdown that cannot
    // finish, and the data directories are temporary anyway
    for (KafkaBroker n : nodes) {
      if (n.isRunning()) {
        n.kill();
      }
    }
    for (KafkaBroker n : nodes) {
      n.close();
    }
  }
}
