package io.demandfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.stream.DemandTopology;
import io.demandfold.stream.DlqDeserializationHandler;
import io.demandfold.stream.DlqProcessingHandler;
import io.demandfold.stream.PipelineMetrics;
import io.demandfold.stream.StreamSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fold} and the pipeline apply one rule to names that are not Unicode text: a target or a
 * shard id with a lone surrogate ({@code "\\ud800"} in JSON) stops {@code fold} and is
 * dead-lettered by the pipeline, with the same message. Encoded anyway, {@code \\ud800} and {@code
 * \\ud801} both became {@code ?}: one {@code 3f/s} record for two distinct targets.
 */
class FoldPipelineAgreementTest {
  private static final String DLQ = "demand.events.dlq";
  private static final String TAIL =
      "\"sealed_through\":5,\"flushed_at_ms\":1764400005000,\"writer_epoch\":1,"
          + "\"source\":\"writer\"}";

  private TopologyTestDriver driver;

  /** Each test's own state directory: the default under /tmp is shared by every build here. */
  @TempDir Path stateDir;

  private TestInputTopic<byte[], byte[]> events;
  private TestOutputTopic<byte[], byte[]> dlq;

  @BeforeEach
  void setUp() {
    StreamSettings s = StreamSettings.defaults();
    PipelineMetrics metrics = new PipelineMetrics(new SimpleMeterRegistry());
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "agreement");
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
    p.put(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG, DLQ);
    p.put(
        StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
        DlqDeserializationHandler.class);
    p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, DlqProcessingHandler.class);
    p.put(PipelineMetrics.CONFIG_KEY, metrics);
    driver = new TopologyTestDriver(DemandTopology.build(s, null, metrics), p);
    events =
        driver.createInputTopic(
            s.eventsTopic(), new ByteArraySerializer(), new ByteArraySerializer());
    dlq = driver.createOutputTopic(DLQ, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  @AfterEach
  void tearDown() {
    driver.close();
  }

  @Test
  void shouldRefuseALoneSurrogateInATargetInFoldAndPipelineWithOneMessage(@TempDir Path dir)
      throws Exception {
    // the key the pipeline would see from a producer that encodes "\ud800" as '?' (3f)
    assertAgree(dir, "3f/s", "{\"target\":\"\\ud800\",\"shard\":\"s\"," + TAIL);
    assertAgree(dir, "3f/s", "{\"target\":\"a\\udc01\",\"shard\":\"s\"," + TAIL);
    assertAgree(dir, "61/s?", "{\"target\":\"a\",\"shard\":\"s\\ud801\"," + TAIL);
  }

  @Test
  void shouldNotMergeTwoLoneSurrogateTargetsIntoOneRecord(@TempDir Path dir) throws Exception {
    Path input = dir.resolve("two.jsonl");
    Files.writeString(
        input,
        "{\"target\":\"\\ud800\",\"shard\":\"s\","
            + TAIL
            + "\n{\"target\":\"\\ud801\",\"shard\":\"s\","
            + TAIL
            + "\n");
    FoldCommandTest.Run r = FoldCommandTest.run("fold", "--skip-bad", "--input", input.toString());
    assertThat(r.exit()).isZero();
    assertThat(r.out()).as("no record for either target").doesNotContain("3f/s").isEmpty();
    assertThat(r.err()).contains("skipped 2 bad line(s)");
  }

  @Test
  void shouldRefuseAvroNamesThatAreNotUtf8InsteadOfReplacingThem() {
    byte[] a = avroWithTarget(new byte[] {'o', (byte) 0xff, 'x'});
    byte[] b = avroWithTarget(new byte[] {'o', (byte) 0xfe, 'x'});
    // with replacement characters both would be the target "o\ufffdx", key 6fefbfbd78/s1
    for (byte[] v : List.of(a, b)) {
      events.pipeInput("6fefbfbd78/s1".getBytes(StandardCharsets.UTF_8), v);
    }
    List<TestRecord<byte[], byte[]>> dead = dlq.readRecordsToList();
    assertThat(dead).hasSize(2);
    for (TestRecord<byte[], byte[]> d : dead) {
      assertThat(header(d, "demandfold.dlq.reason")).isEqualTo("undecodable");
      assertThat(header(d, "demandfold.dlq.message"))
          .isEqualTo("field 'target' is not valid UTF-8");
    }
  }

  /** {@code fold} stops at the line with a message, and the pipeline dead-letters it with it. */
  private void assertAgree(Path dir, String key, String json) throws Exception {
    Path input = Files.createTempFile(dir, "line", ".jsonl");
    Files.writeString(input, json + "\n");
    FoldCommandTest.Run fold = FoldCommandTest.run("fold", "--input", input.toString());
    assertThat(fold.exit()).as(json).isEqualTo(FoldCommand.EXIT_BAD_INPUT);
    assertThat(fold.out()).isEmpty();

    events.pipeInput(key.getBytes(StandardCharsets.UTF_8), json.getBytes(StandardCharsets.UTF_8));
    List<TestRecord<byte[], byte[]>> dead = dlq.readRecordsToList();
    assertThat(dead).as(json).hasSize(1);
    assertThat(header(dead.get(0), "demandfold.dlq.reason")).isEqualTo("invalid_field");
    String message = header(dead.get(0), "demandfold.dlq.message");
    assertThat(message).contains("lone surrogate");
    assertThat(fold.err().strip()).isEqualTo("demandfold fold: " + input + ": line 1: " + message);
  }

  /** A valid Avro event of target "orx", its target's bytes then replaced by {@code target}. */
  private static byte[] avroWithTarget(byte[] target) {
    byte[] ok =
        AvroCodec.encodeEvent(
            JsonCodec.decodeEvent(
                ("{\"target\":\"orx\",\"shard\":\"s1\"," + TAIL).getBytes(StandardCharsets.UTF_8)));
    // header (10 bytes), v (1 byte), the target's length (1 byte), then its 3 bytes
    byte[] out = ok.clone();
    System.arraycopy(target, 0, out, 12, 3);
    assertThat(Arrays.copyOfRange(ok, 12, 15)).isEqualTo("orx".getBytes(StandardCharsets.UTF_8));
    return out;
  }

  private static String header(TestRecord<byte[], byte[]> r, String name) {
    var h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }
}
