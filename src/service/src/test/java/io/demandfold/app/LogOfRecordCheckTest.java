package io.demandfold.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class LogOfRecordCheckTest {
  private static final String TOPIC = "demand.events";

  private static OptionalInt isr(int n) {
    return OptionalInt.of(n);
  }

  @Test
  void shouldFindNothingWrongWithThreeReplicasAndTwoInSyncOnThreeBrokers() {
    assertThat(LogOfRecordCheck.problem(TOPIC, 3, 3, isr(2))).isEmpty();
    assertThat(LogOfRecordCheck.problem(TOPIC, 5, 3, isr(2))).isEmpty();
    assertThat(LogOfRecordCheck.problem(TOPIC, 3, 2, isr(2))).isEmpty();
  }

  @Test
  void shouldNameTheTopicAndFiguresOfOneReplicaOnThreeBrokers() {
    Optional<String> p = LogOfRecordCheck.problem(TOPIC, 3, 1, isr(1));
    assertThat(p)
        .hasValueSatisfying(
            m ->
                assertThat(m)
                    .contains("'demand.events'")
                    .contains("replication factor 1")
                    .contains("min.insync.replicas 1")
                    .contains("3 brokers")
                    .contains("docs/operations.md"));
  }

  @Test
  void shouldFindOneInSyncReplicaWrongEvenWithThreeReplicas() {
    assertThat(LogOfRecordCheck.problem(TOPIC, 3, 3, isr(1)))
        .hasValueSatisfying(
            m -> assertThat(m).contains("replication factor 3").contains("min.insync.replicas 1"));
  }

  @Test
  void shouldJudgeAnUnreadableMinimumByTheReplicationFactorAlone() {
    assertThat(LogOfRecordCheck.problem(TOPIC, 3, 3, OptionalInt.empty())).isEmpty();
    assertThat(LogOfRecordCheck.problem(TOPIC, 3, 1, OptionalInt.empty()))
        .hasValueSatisfying(m -> assertThat(m).contains("min.insync.replicas unknown"));
  }

  @Test
  void shouldLetClustersOfFewerThanThreeBrokersPass() {
    assertThat(LogOfRecordCheck.problem(TOPIC, 1, 1, isr(1))).isEmpty();
    assertThat(LogOfRecordCheck.problem(TOPIC, 2, 1, isr(1))).isEmpty();
  }

  @Test
  void shouldRefuseOneReplicaOnThreeBrokersNamingTheSettingWhenReplicationIsRequired() {
    assertThatThrownBy(
            () -> LogOfRecordCheck.enforce(LogOfRecordCheck.problem(TOPIC, 3, 1, isr(2)), true))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'demand.events'")
        .hasMessageContaining("replication factor 1")
        .hasMessageContaining("topics.require.replication=true");
  }

  @Test
  void shouldOnlyWarnWhenReplicationIsNotRequired() {
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    Logger log = (Logger) LoggerFactory.getLogger(LogOfRecordCheck.class);
    logged.setContext(log.getLoggerContext());
    logged.start();
    log.addAppender(logged);
    try {
      LogOfRecordCheck.enforce(LogOfRecordCheck.problem(TOPIC, 3, 1, isr(1)), false);
      LogOfRecordCheck.enforce(LogOfRecordCheck.problem(TOPIC, 3, 3, isr(2)), false);
    } finally {
      log.detachAppender(logged);
    }
    assertThat(logged.list).hasSize(1);
    assertThat(logged.list.get(0).getLevel()).isEqualTo(Level.WARN);
    assertThat(logged.list.get(0).getFormattedMessage())
        .contains("'demand.events'")
        .contains("replication factor 1")
        .contains("topics.require.replication=true");
  }

  @Test
  void shouldRefuseAnUnreadableMinimumOnThreeBrokersOnlyWhenReplicationIsRequired() {
    LogOfRecordCheck.Figures unreadable =
        new LogOfRecordCheck.Figures(
            TOPIC, 3, 3, OptionalInt.empty(), OptionalInt.empty(), "authorization failed");
    unreadable.check(false);
    assertThatThrownBy(() -> unreadable.check(true))
        .hasMessageContaining("cannot read min.insync.replicas")
        .hasMessageContaining("authorization failed")
        .hasMessageContaining("topics.require.replication=true");
    new LogOfRecordCheck.Figures(
            TOPIC, 1, 1, OptionalInt.empty(), OptionalInt.empty(), "authorization failed")
        .check(true);
  }

  @Test
  void shouldTakeTheFewestReplicasOfAnyPartition() {
    Node a = new Node(1, "127.0.0.1", 1);
    Node b = new Node(2, "127.0.0.1", 2);
    Node c = new Node(3, "127.0.0.1", 3);
    TopicDescription d =
        new TopicDescription(
            TOPIC,
            false,
            List.of(
                new TopicPartitionInfo(0, a, List.of(a, b, c), List.of(a, b, c)),
                new TopicPartitionInfo(1, b, List.of(b), List.of(b))));
    assertThat(LogOfRecordCheck.replicationFactor(d)).isEqualTo(1);
  }
}
