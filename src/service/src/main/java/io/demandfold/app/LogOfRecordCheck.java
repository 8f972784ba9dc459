package io.demandfold.app;

import io.demandfold.config.DemandfoldConfig;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.TopicConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start-up check of the events topic's replication: demandfold does not own the log of record,
 * yet with one replica, or one in-sync replica enough to acknowledge a write, one broker's loss
 * loses acknowledged events or stops the pipeline. Kafka's own defaults give such a topic on any
 * cluster, so on 3 or more brokers the check logs a WARN naming the topic and its figures, and with
 * {@code topics.require.replication=true} refuses to start. A smaller cluster cannot do better and
 * passes.
 */
final class LogOfRecordCheck {
  private static final Logger log = LoggerFactory.getLogger(LogOfRecordCheck.class);

  /** The smallest cluster the rule is for. */
  static final int MIN_BROKERS = 3;

  private LogOfRecordCheck() {}

  /**
   * What is wrong with the replication of {@code topic}, or empty when nothing is.
   *
   * @param brokers the brokers of the cluster
   * @param replicationFactor the fewest replicas of any partition of the topic
   * @param minInsyncReplicas the topic's effective {@code min.insync.replicas}; empty when unknown
   */
  static Optional<String> problem(
      String topic, int brokers, int replicationFactor, OptionalInt minInsyncReplicas) {
    if (brokers < MIN_BROKERS) {
      return Optional.empty();
    }
    boolean oneReplica = replicationFactor <= 1;
    boolean oneInSync = minInsyncReplicas.isPresent() && minInsyncReplicas.getAsInt() <= 1;
    if (!oneReplica && !oneInSync) {
      return Optional.empty();
    }
    return Optional.of(
        String.format(
            "the events topic '%s' has replication factor %d and min.insync.replicas %s on a"
                + " cluster of %d brokers: %s; give it a replication factor of 3 and"
                + " min.insync.replicas 2 (docs/operations.md: Replication)",
            topic,
            replicationFactor,
            minInsyncReplicas.isPresent()
                ? String.valueOf(minInsyncReplicas.getAsInt())
                : "unknown",
            brokers,
            oneReplica
                ? "one broker's loss loses its events or stops the pipeline"
                : "a write acknowledged by one broker is lost with that broker"));
  }

  /**
   * Logs {@code problem} at WARN, or, when {@code require} ({@code topics.require.replication}),
   * refuses to start naming the setting.
   *
   * @throws IllegalStateException when {@code require} and there is a problem
   */
  static void enforce(Optional<String> problem, boolean require) {
    if (problem.isEmpty()) {
      return;
    }
    if (require) {
      throw new IllegalStateException(
          problem.get()
              + "; refusing to start because "
              + DemandfoldConfig.TOPICS_REQUIRE_REPLICATION
              + "=true");
    }
    log.warn(
        "{} (set {}=true to refuse to start on this)",
        problem.get(),
        DemandfoldConfig.TOPICS_REQUIRE_REPLICATION);
  }

  /**
   * The events topic's figures, read at start.
   *
   * @param minInsyncReplicas the effective {@code min.insync.replicas}; empty when unreadable
   * @param ownMinInsyncReplicas the topic's own setting of it, empty when it inherits the broker's
   * @param unreadable why {@code min.insync.replicas} could not be read, or null
   */
  record Figures(
      String topic,
      int brokers,
      int replicationFactor,
      OptionalInt minInsyncReplicas,
      OptionalInt ownMinInsyncReplicas,
      String unreadable) {

    /**
     * Checks these figures ({@link #problem}, {@link #enforce}); when {@code require} also refuses
     * a cluster of 3+ brokers whose events topic's {@code min.insync.replicas} cannot be read.
     */
    void check(boolean require) {
      Optional<String> p = problem(topic, brokers, replicationFactor, minInsyncReplicas);
      if (p.isEmpty() && unreadable != null && brokers >= MIN_BROKERS) {
        p =
            Optional.of(
                String.format(
                    "cannot read min.insync.replicas of the events topic '%s' (%s; it needs"
                        + " DescribeConfigs on the topic)",
                    topic, unreadable));
      }
      enforce(p, require);
    }
  }

  /**
   * Reads the cluster's broker count and the events topic's {@code min.insync.replicas}; {@code
   * events} is the description read once at start ({@link TopicDefinitions#describe}).
   */
  static Figures read(Admin admin, TopicDescription events, long timeoutMs)
      throws InterruptedException, ExecutionException, TimeoutException {
    int brokers = admin.describeCluster().nodes().get(timeoutMs, TimeUnit.MILLISECONDS).size();
    OptionalInt minIsr = OptionalInt.empty();
    OptionalInt own = OptionalInt.empty();
    String unreadable = null;
    try {
      ConfigEntry e =
          TopicDefinitions.config(
              admin, events.name(), TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, timeoutMs);
      if (e == null || e.value() == null) {
        unreadable = "not in the answer";
      } else {
        minIsr = OptionalInt.of(Integer.parseInt(e.value()));
        if (e.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG) {
          own = minIsr;
        }
      }
    } catch (ExecutionException x) {
      unreadable = x.getCause() == null ? x.toString() : x.getCause().getMessage();
    }
    if (unreadable != null && brokers < MIN_BROKERS) {
      // on 3+ brokers Figures.check says it, once
      log.warn(
          "cannot read min.insync.replicas of the events topic {}: {}", events.name(), unreadable);
    }
    return new Figures(events.name(), brokers, replicationFactor(events), minIsr, own, unreadable);
  }

  /**
   * The fewest replicas of any partition of {@code topic} (after a reassignment they may differ).
   */
  static int replicationFactor(TopicDescription topic) {
    return topic.partitions().stream()
        .mapToInt((TopicPartitionInfo p) -> p.replicas().size())
        .min()
        .orElse(0);
  }
}
