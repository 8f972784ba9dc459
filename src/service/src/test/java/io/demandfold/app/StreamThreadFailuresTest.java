package io.demandfold.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.streams.errors.MissingSourceTopicException;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.errors.TaskCorruptedException;
import org.apache.kafka.streams.errors.TaskMigratedException;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;

class StreamThreadFailuresTest {
  private static final TaskId TASK = new TaskId(0, 3);

  /** How Kafka Streams reports a task that made no progress for {@code task.timeout.ms}. */
  private static StreamsException taskTimeout() {
    return new StreamsException(
        new TimeoutException(
            "Task 0_3 did not make progress within 300000 ms",
            new TimeoutException("Expiring 1 record(s) for demand.events-3")),
        TASK);
  }

  @Test
  void shouldCallTransientWhatKafkaRetriesOrStreamsRecovers() {
    for (Throwable e :
        List.of(
            taskTimeout(),
            new StreamsException(new NotLeaderOrFollowerException("moved"), TASK),
            new KafkaException("send failed", new NotEnoughReplicasException("isr 1 < 2")),
            new TaskCorruptedException(Set.of(TASK)),
            // seen in ClusterTierIT: the coordinator aborted the transaction while a broker was
            // away
            new StreamsException(
                "Error encountered trying to commit a transaction",
                new InvalidTxnStateException("invalid state")),
            new TaskMigratedException("revoked", new KafkaException("commit failed")))) {
      assertThat(StreamThreadFailures.fatalReason(e)).as(e.toString()).isNull();
    }
  }

  @Test
  void shouldCallFatalWhatANewThreadCannotMendAndSayWhy() {
    assertThat(
            StreamThreadFailures.fatalReason(
                new StreamsException(new ProducerFencedException("epoch 7 < 8"), TASK)))
        .contains("fenced");
    assertThat(
            StreamThreadFailures.fatalReason(
                new StreamsException(new TopicAuthorizationException(Set.of("demand.events")))))
        .contains("denied");
    assertThat(
            StreamThreadFailures.fatalReason(
                new KafkaException(new SaslAuthenticationException("bad password"))))
        .contains("credentials");
    assertThat(StreamThreadFailures.fatalReason(new UnsupportedVersionException("no such request")))
        .contains("does not support");
    assertThat(StreamThreadFailures.fatalReason(new OutOfMemoryError("Java heap space")))
        .contains("JVM error (OutOfMemoryError)");
    assertThat(
            StreamThreadFailures.fatalReason(
                new StreamsException(
                    "Exception caught in process",
                    new IllegalStateException("2 outcomes for 3 keys"))))
        .contains("likely a bug (java.lang.IllegalStateException)");
    assertThat(StreamThreadFailures.fatalReason(new MissingSourceTopicException("deleted")))
        .contains("not known to be transient");
    // a fatal cause under a retriable one is still fatal
    assertThat(
            StreamThreadFailures.fatalReason(
                new StreamsException(
                    new TimeoutException(
                        "metadata", new TopicAuthorizationException(Set.of("demand.events"))))))
        .contains("denied");
  }

  @Test
  void shouldReplaceTheThreadUpToTheBoundWithinTheWindowThenEndWithItsOwnStatus() {
    AtomicLong now = new AtomicLong(1_000_000);
    List<StreamThreadFailures.Fatal> ended = new ArrayList<>();
    AtomicLong replaced = new AtomicLong();
    StreamThreadFailures failures =
        new StreamThreadFailures(ended::add, replaced::incrementAndGet, now::get);
    for (int i = 0; i < StreamThreadFailures.REPLACEMENTS; i++) {
      assertThat(failures.handle(taskTimeout()))
          .as("transient failure %d", i + 1)
          .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
      now.addAndGet(1000);
    }
    assertThat(ended).isEmpty();
    assertThat(replaced).as("replacements counted").hasValue(StreamThreadFailures.REPLACEMENTS);
    // the oldest failure leaves the window: one more replacement is allowed
    now.set(1_000_000 + StreamThreadFailures.WINDOW.toMillis());
    assertThat(failures.handle(taskTimeout()))
        .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
    assertThat(failures.handle(taskTimeout()))
        .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
    assertThat(ended).hasSize(1);
    assertThat(ended.get(0)).hasMessageContaining("transient failures repeated");
    assertThat(ended.get(0).getCause()).isInstanceOf(StreamsException.class);
    assertThat(StreamThreadFailures.exitStatus(ended.get(0)))
        .isEqualTo(StreamThreadFailures.EXIT_REPEATED);
  }

  @Test
  void shouldEndAtOnceOnAFatalFailureWithTheFatalStatus() {
    List<StreamThreadFailures.Fatal> ended = new ArrayList<>();
    StreamThreadFailures failures = new StreamThreadFailures(ended::add, () -> 0L);
    assertThat(
            failures.handle(new StreamsException(new ProducerFencedException("epoch 7 < 8"), TASK)))
        .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
    assertThat(ended).hasSize(1);
    assertThat(ended.get(0)).hasMessageContaining("fenced");
    assertThat(StreamThreadFailures.exitStatus(ended.get(0)))
        .isEqualTo(StreamThreadFailures.EXIT_FATAL);
    assertThat(StreamThreadFailures.exitStatus(new IllegalStateException("cannot start")))
        .isEqualTo(1);
    assertThat(StreamThreadFailures.EXIT_FATAL)
        .isNotEqualTo(StreamThreadFailures.EXIT_REPEATED)
        .isNotIn(0, 1, 2);
  }
}
