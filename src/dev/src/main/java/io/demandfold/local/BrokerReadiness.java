package io.demandfold.local;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Waits until a starting broker serves: its listener accepts connections, the cluster metadata
 * lists it and the controller accepts a (validate-only) topic creation with replication factor 1.
 */
final class BrokerReadiness {
  private static final String PROBE_TOPIC = "demandfold-readiness-probe";
  private static final int CALL_TIMEOUT_MS = 5000;

  private final KafkaBroker broker;
  private final ChildProcess process;
  private final int nodeId;

  BrokerReadiness(KafkaBroker broker, ChildProcess process, int nodeId) {
    this.broker = broker;
    this.process = process;
    this.nodeId = nodeId;
  }

  /**
   * Returns when ready; throws when the process exits or at {@code deadline} ({@link
   * System#nanoTime()}), {@code timeout} after the start began.
   */
  void await(long deadline, Duration timeout) {
    while (!FreePorts.isListening(broker.port())) {
      check(deadline, timeout, "never accepted connections on " + broker.bootstrapServers());
      Pause.millis(100);
    }
    Properties props = new Properties();
    props.putAll(broker.clientProperties());
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, CALL_TIMEOUT_MS);
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, CALL_TIMEOUT_MS);
    String problem = "no answer";
    try (Admin admin = Admin.create(props)) {
      while (true) {
        check(deadline, timeout, "was not ready (" + problem + ")");
        try {
          Collection<Node> nodes =
              admin.describeCluster().nodes().get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
          if (nodes.stream().anyMatch(node -> node.id() == nodeId)) {
            validateTopicCreation(admin);
            return;
          }
          problem = "the cluster metadata does not list broker " + nodeId;
        } catch (ExecutionException e) {
          problem = String.valueOf(e.getCause());
        } catch (TimeoutException e) {
          problem = "no answer within " + CALL_TIMEOUT_MS + " ms";
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new ServiceStartException("interrupted while waiting for the Kafka broker", e);
        }
        Pause.millis(200);
      }
    }
  }

  private static void validateTopicCreation(Admin admin)
      throws ExecutionException, InterruptedException, TimeoutException {
    NewTopic topic = new NewTopic(PROBE_TOPIC, 1, (short) 1);
    try {
      admin
          .createTopics(List.of(topic), new CreateTopicsOptions().validateOnly(true))
          .all()
          .get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw e;
      }
    }
  }

  private void check(long deadline, Duration timeout, String problem) {
    if (!process.isAlive()) {
      throw broker.failure("exited with status " + process.exitValue() + " while starting");
    }
    if (System.nanoTime() - deadline > 0) {
      throw broker.failure(
          problem + " within " + timeout.toSeconds() + " s (pid " + process.pid() + ")");
    }
  }
}
