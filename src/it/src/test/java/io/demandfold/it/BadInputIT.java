package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.app.DemandfoldService;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Events;
import io.demandfold.core.InvalidEventException.Reason;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.corpus.BadInputs;
import io.demandfold.corpus.BadInputs.BadInput;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every kind of the bad-input corpus ({@code src/it/src/test/resources/bad-inputs/}), interleaved
 * with valid events, through a real pipeline, several rounds: each lands in the DLQ with its reason
 * and original bytes, the stream keeps running, the valid events are folded exactly, and the heap
 * does not grow with the rounds.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class BadInputIT {
  private static final int ROUNDS = 4;
  private static final int EIGHT_MIB = 8 << 20;

  /**
   * Oversized kinds need room on the way in (the events topic, the test's producer) and on the way
   * to the DLQ (the DLQ topic, the pipeline's producer).
   */
  static Path largeTopics(Path dir, boolean dlqToo) throws Exception {
    StringBuilder sb = new StringBuilder(Files.readString(Path.of("topology/topics.properties")));
    sb.append("\nevents.config.max.message.bytes=").append(EIGHT_MIB).append('\n');
    if (dlqToo) {
      sb.append("dlq.config.max.message.bytes=").append(EIGHT_MIB).append('\n');
    }
    Path file = dir.resolve("topics.properties");
    Files.writeString(file, sb);
    return file;
  }

  @Test
  void shouldDeadLetterEveryKindOfTheCorpusWithItsReasonAndFoldTheValidEventsAround(
      Services services, @TempDir Path dir) throws Exception {
    List<BadInput> corpus = BadInputs.load();
    try (Harness h =
        new Harness(
            services, "corpus", Map.of(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, EIGHT_MIB))) {
      DemandfoldService s =
          h.start(
              Map.of(
                  "topics.definitions", largeTopics(dir, true).toString(),
                  "kafka.producer.max.request.size", Integer.toString(EIGHT_MIB)));
      Random rnd = new Random(29);
      List<DemandEvent> valid = new ArrayList<>();
      List<BadInput> sent = new ArrayList<>();
      List<Long> heapAfterRound = new ArrayList<>();
      List<Long> roundMillis = new ArrayList<>();
      long g = 0;
      for (int round = 1; round <= ROUNDS; round++) {
        long t0 = System.nanoTime();
        for (BadInput b : corpus) {
          g++;
          DemandEvent e =
              new DemandEvent(
                  g % 4 == 0 ? "other" : "orders",
                  Events.writer("s" + (g % 3 + 1), g, 1, 1_764_400_000_000L + g * 1000));
          valid.add(e);
          h.produceRaw(
              e.key().getBytes(StandardCharsets.UTF_8),
              rnd.nextBoolean() ? JsonCodec.encodeEvent(e) : AvroCodec.encodeEvent(e));
          h.produceRaw(b.key(), b.value());
          sent.add(b);
        }
        h.flush();
        int expected = sent.size();
        Harness.await(
            expected + " dead letters",
            () -> s.metrics().dlqTotal(),
            n -> n >= expected,
            Harness.PATIENCE);
        h.awaitEtcd(Harness.fold(valid));
        roundMillis.add((System.nanoTime() - t0) / 1_000_000);
        assertThat(s.streams().state()).as("round %d", round).isEqualTo(KafkaStreams.State.RUNNING);
        assertThat(s.failure()).isNull();
        heapAfterRound.add(heapAfterGc());
      }

      List<ConsumerRecord<byte[], byte[]>> dlq = services.readAll(h.name + ".dlq");
      Faults.assertDeadLettersAreExactly(dlq, sent);
      for (ConsumerRecord<byte[], byte[]> r : dlq) {
        assertThat(Faults.header(r, "__streams.errors.topic")).isEqualTo(h.eventsTopic);
        assertThat(Faults.header(r, "__streams.errors.offset")).isNotNull();
      }
      for (Reason reason : Reason.values()) {
        long want = corpus.stream().filter(b -> b.reason().equals(reason.code())).count() * ROUNDS;
        assertThat(s.metrics().dlqCount(reason)).as(reason.code()).isEqualTo(want);
      }
      long growth = heapAfterRound.get(ROUNDS - 1) - heapAfterRound.get(0);
      long hostileBytes = sent.stream().mapToLong(BadInput::size).sum();
      Map<String, String> where = new TreeMap<>();
      corpus.forEach(b -> where.put(b.kind(), "DLQ/" + b.reason()));
      System.out.printf(
          "BadInputIT figures: %d kinds x %d rounds = %d bad records (%.1f MB) interleaved with %d"
              + " valid events: DLQ=%d %s, valid folded exactly, streams RUNNING; round times %s"
              + " ms; heap after GC per round %s MB (growth %.1f MB)%n",
          corpus.size(),
          ROUNDS,
          sent.size(),
          hostileBytes / 1e6,
          valid.size(),
          dlq.size(),
          Faults.byReason(dlq),
          roundMillis,
          heapAfterRound.stream().map(b -> b / (1 << 20)).toList(),
          growth / 1048576.0);
      assertThat(growth)
          .as(
              "heap growth after GC over %d rounds of %.1f MB of bad input",
              ROUNDS - 1, hostileBytes / 1e6)
          .isLessThan(32L << 20);
    }
  }

  @Test
  void shouldCutABadRecordTooLargeForTheDeadLetterTopicToFitAndKeepFolding(
      Services services, @TempDir Path dir) throws Exception {
    BadInput huge =
        BadInputs.load().stream()
            .filter(b -> b.kind().equals("json-sealed-times-100000"))
            .findFirst()
            .orElseThrow();
    BadInput small =
        BadInputs.load().stream()
            .filter(b -> b.kind().equals("json-version-999"))
            .findFirst()
            .orElseThrow();
    try (Harness h =
        new Harness(
            services, "too-large", Map.of(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, EIGHT_MIB))) {
      // the events topic and the pipeline's producer take 8 MiB records, the DLQ topic its 1 MB:
      // a record the broker refused would fail the transaction at every restart
      DemandfoldService s =
          h.start(
              Map.of(
                  "topics.definitions", largeTopics(dir, false).toString(),
                  "kafka.producer.max.request.size", Integer.toString(EIGHT_MIB)));
      List<DemandEvent> valid = new ArrayList<>();
      for (int g = 1; g <= 6; g++) {
        DemandEvent e =
            new DemandEvent("orders", Events.writer("s1", g, 1, 1_764_400_000_000L + g));
        valid.add(e);
        h.produceRaw(e.key().getBytes(StandardCharsets.UTF_8), JsonCodec.encodeEvent(e));
        BadInput b = g % 2 == 0 ? huge : small;
        h.produceRaw(b.key(), b.value());
      }
      h.flush();
      h.awaitEtcd(Harness.fold(valid));
      Harness.await("6 dead letters", () -> s.metrics().dlqTotal(), n -> n >= 6, Harness.PATIENCE);
      assertThat(s.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);
      assertThat(s.failure()).isNull();
      List<ConsumerRecord<byte[], byte[]>> dlq = services.readAll(h.name + ".dlq");
      assertThat(dlq).hasSize(6);
      List<ConsumerRecord<byte[], byte[]>> cut =
          dlq.stream().filter(r -> Faults.header(r, "demandfold.dlq.truncated") != null).toList();
      Faults.assertDeadLettersAreExactly(
          dlq.stream().filter(r -> !cut.contains(r)).toList(), List.of(small, small, small));
      assertThat(cut).hasSize(3);
      for (ConsumerRecord<byte[], byte[]> r : cut) {
        assertThat(Faults.header(r, "demandfold.dlq.reason")).isEqualTo(huge.reason());
        assertThat(Faults.header(r, "demandfold.dlq.truncated"))
            .isEqualTo("key=" + huge.key().length + " value=" + huge.value().length);
        assertThat(r.key()).isEqualTo(huge.key());
        assertThat(r.value().length).isLessThan(1 << 20).isGreaterThan(1 << 19);
        assertThat(huge.value()).startsWith(r.value());
      }
      assertThat(s.metrics().dlqCount(Reason.INVALID_FIELD)).isEqualTo(3);
      assertThat(s.metrics().dlqCount(Reason.UNKNOWN_VERSION)).isEqualTo(3);
      assertThat(s.metrics().dlqTruncated()).isEqualTo(3);
    }
  }

  /**
   * Bad records with large headers: one whose headers alone are larger than the pipeline producer's
   * {@code max.request.size} (the events topic takes it), one that fits the default 1 MB with 1 KiB
   * to spare. Their dead-letter copies (the original headers plus Kafka's {@code
   * __streams.errors.*} and ours) would not fit: each drops its large header (and says so) but
   * keeps the small one and the original key and value; the stream keeps running and folds the
   * events around them.
   */
  @Test
  void shouldDropTheOversizedHeadersOfADeadLetterAndKeepFolding(
      Services services, @TempDir Path dir) throws Exception {
    BadInput bad =
        BadInputs.load().stream()
            .filter(b -> b.kind().equals("json-version-999"))
            .findFirst()
            .orElseThrow();
    byte[] trace = "4bf92f3577b34da6a3ce929d0e0e4736".getBytes(StandardCharsets.UTF_8);
    Random rnd = new Random(31);
    byte[] huge = new byte[3 << 19];
    rnd.nextBytes(huge);
    byte[] almost = new byte[(1 << 20) - 1024 - bad.key().length - bad.value().length];
    rnd.nextBytes(almost);
    try (Harness h =
        new Harness(
            services, "large-headers", Map.of(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, EIGHT_MIB))) {
      // the events topic takes 8 MiB records; the pipeline's producer and the DLQ topic 1 MB
      DemandfoldService s =
          h.start(Map.of("topics.definitions", largeTopics(dir, false).toString()));
      List<DemandEvent> valid = new ArrayList<>();
      for (int g = 1; g <= 6; g++) {
        DemandEvent e =
            new DemandEvent("orders", Events.writer("s" + g % 2, g, 1, 1_764_400_000_000L + g));
        valid.add(e);
        h.produceRaw(e.key().getBytes(StandardCharsets.UTF_8), JsonCodec.encodeEvent(e));
        if (g == 2 || g == 4) {
          byte[] blob = g == 2 ? huge : almost;
          h.produceRaw(
              bad.key(),
              bad.value(),
              List.of(new RecordHeader("trace-id", trace), new RecordHeader("blob", blob)));
        }
      }
      h.flush();
      Harness.await(
          "2 dead letters, or the instance to fail",
          () -> new Counted(s.metrics().dlqTotal(), s.failure()),
          c -> c.failure() != null || c.count() >= 2,
          Harness.PATIENCE);
      assertThat(s.failure()).isNull();
      h.awaitEtcd(Harness.fold(valid));
      assertThat(s.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);

      List<ConsumerRecord<byte[], byte[]>> dlq = services.readAll(h.name + ".dlq");
      Faults.assertDeadLettersAreExactly(dlq, List.of(bad, bad));
      for (int i = 0; i < 2; i++) {
        ConsumerRecord<byte[], byte[]> r = dlq.get(i);
        int blob = i == 0 ? huge.length : almost.length;
        assertThat(r.headers().lastHeader("blob")).as("the large header is dropped").isNull();
        assertThat(r.headers().lastHeader("trace-id").value()).isEqualTo(trace);
        assertThat(Faults.header(r, "demandfold.dlq.headers.dropped"))
            .isEqualTo("count=1 bytes=" + ("blob".length() + blob));
        assertThat(Faults.header(r, "demandfold.dlq.truncated"))
            .isEqualTo("key=" + bad.key().length + " value=" + bad.value().length);
        assertThat(Faults.header(r, "__streams.errors.topic")).isEqualTo(h.eventsTopic);
      }
      assertThat(s.metrics().dlqTruncated()).isEqualTo(2);
      assertThat(s.metrics().dlqDropped()).isZero();

      // the events after them still fold: their offsets were committed
      DemandEvent later = new DemandEvent("orders", Events.writer("s9", 9, 1, 1_764_400_009_000L));
      valid.add(later);
      h.produceRaw(later.key().getBytes(StandardCharsets.UTF_8), AvroCodec.encodeEvent(later));
      h.flush();
      h.awaitEtcd(Harness.fold(valid));
      assertThat(s.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);
      assertThat(services.readAll(h.name + ".dlq")).hasSize(2);
    }
  }

  /**
   * A dead-letter record the broker refuses (the DLQ topic's {@code max.message.bytes} was lowered
   * after the start, so it was not cut to that limit): under {@code at_least_once} the production
   * exception handler counts and drops it, and the stream goes on folding. Under {@code
   * exactly_once_v2} a refused send has already made the producer's transaction abortable, so the
   * stream thread fails whatever the handler says (see docs/events.md, Dead letters).
   */
  @Test
  void shouldCountAndDropADeadLetterRecordTheBrokerRefuses(Services services) throws Exception {
    try (Harness h = new Harness(services, "dlq-refused")) {
      DemandfoldService s = h.start(Map.of("kafka.processing.guarantee", "at_least_once"));
      String dlqTopic = h.name + ".dlq";
      ConfigResource dlqConfig = new ConfigResource(ConfigResource.Type.TOPIC, dlqTopic);
      services
          .admin()
          .incrementalAlterConfigs(
              Map.of(
                  dlqConfig,
                  List.of(
                      new AlterConfigOp(
                          new ConfigEntry(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "2048"),
                          AlterConfigOp.OpType.SET))))
          .all()
          .get(30, TimeUnit.SECONDS);
      // until the broker applies the new limit, a probe of 4 KB still lands in the DLQ topic
      try (KafkaProducer<byte[], byte[]> probe = new KafkaProducer<>(services.producerProps())) {
        Harness.<Object>await(
            "the broker to refuse 4 KB in " + dlqTopic,
            () -> {
              try {
                return probe
                    .send(new ProducerRecord<>(dlqTopic, "probe".getBytes(), new byte[4096]))
                    .get(30, TimeUnit.SECONDS);
              } catch (Exception e) {
                return e.getCause() == null ? e : e.getCause();
              }
            },
            sent -> sent instanceof RecordTooLargeException,
            Harness.PATIENCE);
      }
      List<DemandEvent> valid = new ArrayList<>();
      byte[] undecodable = new byte[10_000];
      Arrays.fill(undecodable, (byte) 'x');
      for (int g = 1; g <= 6; g++) {
        DemandEvent e =
            new DemandEvent("orders", Events.writer("s" + g % 2, g, 1, 1_764_400_000_000L + g));
        valid.add(e);
        h.produceRaw(e.key().getBytes(StandardCharsets.UTF_8), JsonCodec.encodeEvent(e));
        if (g == 3) {
          h.produceRaw(e.key().getBytes(StandardCharsets.UTF_8), undecodable);
        }
      }
      h.flush();
      Harness.await(
          "a dead letter dropped, or the instance to fail",
          () -> new Counted(s.metrics().dlqDropped(), s.failure()),
          c -> c.failure() != null || c.count() >= 1,
          Harness.PATIENCE);
      assertThat(s.failure()).isNull();
      h.awaitEtcd(Harness.fold(valid));
      assertThat(s.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);
      assertThat(s.metrics().dlqCount(Reason.UNDECODABLE)).isEqualTo(1);
      assertThat(s.metrics().dlqDropped()).isEqualTo(1);
      assertThat(services.readAll(dlqTopic))
          .as("only probes in the DLQ topic")
          .allSatisfy(r -> assertThat(r.key()).isEqualTo("probe".getBytes()));
    }
  }

  /** A count of the instance's metrics, and the error that stopped it if any. */
  private record Counted(long count, Throwable failure) {}

  private static long heapAfterGc() throws InterruptedException {
    long best = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(200);
      best = Math.min(best, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }
    return best;
  }
}
