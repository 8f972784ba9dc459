package io.demandfold.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.it.Services;
import io.demandfold.it.ServicesExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StreamThreadFailures} in a real Kafka Streams application, exactly once, on a real broker:
 * a stream thread that fails with the exception a broker cut can make a commit end with ({@link
 * InvalidTxnStateException}, seen in {@code ClusterTierIT}, where it cannot be made to happen on
 * demand) is replaced and the new thread goes on from the committed offsets, so every record is in
 * the output once; a failure not known to be transient ends the instance with exit status 3 and
 * nothing of the open transaction committed. The failure is thrown by the topology once, on a
 * marked record, in the middle of an open transaction.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class StreamThreadReplacementIT {
  private static final int RECORDS = 1_000;
  private static final int FAILING = 500;
  private static final String MARK = "fail-here";
  private static final Duration PATIENCE = Duration.ofSeconds(90);

  @Test
  void shouldReplaceAThreadThatFailedTransientlyAndGoOnExactlyOnce(
      Services services, @TempDir Path state) throws Exception {
    Run run =
        new Run(
            services,
            "replaced",
            state,
            Duration.ofSeconds(1),
            () -> new InvalidTxnStateException("thrown by the test's topology"));
    try (KafkaStreams streams = run.start()) {
      await("a thread replaced and every record out", () -> run.out().size() >= RECORDS);
      System.out.printf(
          "StreamThreadReplacementIT: every record out %d ms after the thread was replaced%n",
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - run.replacedAtNanos.get()));
      assertThat(run.replaced).as("threads replaced").hasValue(1);
      assertThat(run.fatal).as("no failure ended the instance").hasValue(null);
      assertThat(run.failedOnce).as("the topology failed once").isFalse();
      await("RUNNING with one thread", () -> streams.state() == KafkaStreams.State.RUNNING);
      assertThat(streams.metadataForLocalThreads()).as("stream threads").hasSize(1);
      assertThat(run.out())
          .as("every record once, in order (none of the aborted transaction's twice)")
          .isEqualTo(run.in());
    }
  }

  @Test
  void shouldEndTheInstanceWithTheFatalStatusOnAFailureNotKnownToBeTransient(
      Services services, @TempDir Path state) throws Exception {
    Run run =
        new Run(
            services,
            "fatal",
            state,
            Duration.ofSeconds(8),
            () -> new IllegalStateException("a bug in the topology"));
    try (KafkaStreams streams = run.start()) {
      await("the instance in ERROR", () -> streams.state() == KafkaStreams.State.ERROR);
      assertThat(run.replaced).as("threads replaced").hasValue(0);
      StreamThreadFailures.Fatal fatal = run.fatal.get();
      assertThat(fatal).as("the failure that ended the instance").isNotNull();
      assertThat(StreamThreadFailures.exitStatus(fatal)).isEqualTo(StreamThreadFailures.EXIT_FATAL);
      assertThat(fatal.getMessage())
          .contains("a failure not known to be transient")
          .contains("java.lang.IllegalStateException")
          .contains("a bug in the topology");
      assertThat(run.out()).as("nothing of the open transaction committed").isEmpty();
    }
  }

  /** One application: an input topic of {@link #RECORDS} values, a pass-through, an output. */
  private static final class Run {
    final Services services;
    final String in;
    final String out;
    final String applicationId;
    final Path state;
    final Duration commitInterval;
    final Supplier<RuntimeException> failure;
    final AtomicBoolean failedOnce = new AtomicBoolean(true);
    final AtomicInteger replaced = new AtomicInteger();
    final AtomicLong replacedAtNanos = new AtomicLong();
    final AtomicReference<StreamThreadFailures.Fatal> fatal = new AtomicReference<>();

    Run(
        Services services,
        String name,
        Path state,
        Duration commitInterval,
        Supplier<RuntimeException> failure) {
      this.services = services;
      this.in = services.uniqueName(name + "-in");
      this.out = services.uniqueName(name + "-out");
      this.applicationId = services.uniqueName(name + "-app");
      this.state = state;
      this.commitInterval = commitInterval;
      this.failure = failure;
    }

    List<String> in() {
      List<String> values = new ArrayList<>();
      for (int i = 0; i < RECORDS; i++) {
        values.add(i == FAILING ? MARK : "value-" + i);
      }
      return values;
    }

    List<String> out() {
      List<String> values = new ArrayList<>();
      for (ConsumerRecord<byte[], byte[]> r : services.readAll(out)) {
        values.add(new String(r.value(), StandardCharsets.UTF_8));
      }
      return values;
    }

    KafkaStreams start() throws Exception {
      services.createTopic(in, 1);
      services.createTopic(out, 1);
      try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(services.producerProps())) {
        for (String v : in()) {
          producer.send(new ProducerRecord<>(in, v.getBytes(StandardCharsets.UTF_8))).get();
        }
      }
      StreamsBuilder builder = new StreamsBuilder();
      builder.stream(in, Consumed.with(Serdes.ByteArray(), Serdes.String()))
          .peek(
              (k, v) -> {
                if (MARK.equals(v) && failedOnce.compareAndSet(true, false)) {
                  throw failure.get();
                }
              })
          .to(out, Produced.with(Serdes.ByteArray(), Serdes.String()));
      Properties props = new Properties();
      props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
      props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, services.bootstrapServers());
      props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
      props.put(StreamsConfig.STATE_DIR_CONFIG, state.toString());
      props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
      // all records come in one poll and the failure is met within milliseconds, before the
      // first commit: the records before it are in the open transaction
      props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, commitInterval.toMillis());
      props.put(StreamsConfig.consumerPrefix("max.poll.records"), RECORDS);
      KafkaStreams streams = new KafkaStreams(builder.build(), props);
      streams.setUncaughtExceptionHandler(
          new StreamThreadFailures(
              fatal::set,
              () -> {
                replacedAtNanos.set(System.nanoTime());
                replaced.incrementAndGet();
              }));
      streams.start();
      return streams;
    }
  }

  private static void await(String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("not within " + PATIENCE + ": " + what);
      }
      Thread.sleep(500);
    }
  }
}
