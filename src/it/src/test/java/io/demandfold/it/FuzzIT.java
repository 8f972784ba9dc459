package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.app.DemandfoldService;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.InvalidEventException.Reason;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.Utf8;
import io.demandfold.core.codec.EventDecoder;
import io.demandfold.core.codec.ViewJson;
import java.nio.charset.CharacterCodingException;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded fuzzing of the running pipeline: {@value #RECORDS} records of random keys, values and
 * headers ({@link FuzzRecords}: random bytes, truncated and mutated JSON and Avro, records up to
 * the topic's size limit, huge maps, deep nesting, control characters, among valid events) through
 * a real broker into a pipeline mirroring into a real etcd. Afterwards the streams never left
 * {@code RUNNING}, every invalid record is in the DLQ once with its reason, and etcd and the
 * shard-records and table-demand topics equal the offline fold of the valid ones, byte for byte.
 *
 * <p>The seed is printed; {@code -Dfuzz.seed=N} runs seed N instead of the default. A seed that
 * ever failed goes into {@link #REGRESSIONS}, so that it runs with every build.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class FuzzIT {
  static final int RECORDS = 20_000;
  private static final long DEFAULT_SEED = 20_261_201L;

  /** Seeds that once failed; each runs in full with every build. */
  private static final List<Long> REGRESSIONS = List.of();

  static Stream<Long> seeds() {
    return Stream.concat(Stream.of(Long.getLong("fuzz.seed", DEFAULT_SEED)), REGRESSIONS.stream());
  }

  /** What the pipeline must do with one record: fold it, or dead-letter it for a reason. */
  record Expected(byte[] key, byte[] value, DemandEvent event, Reason reason) {}

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void shouldFoldTheValidAndDeadLetterTheRestOfRandomRecords(long seed, Services services)
      throws Exception {
    System.out.printf(
        "FuzzIT seed=%d (-Dit.test=FuzzIT -Dfuzz.seed=%d runs it again)%n", seed, seed);
    FuzzRecords records = new FuzzRecords(seed);
    try (Harness h = new Harness(services, "fuzz")) {
      DemandfoldService s = h.start();
      Fold fold = new Fold();
      List<Expected> invalid = new ArrayList<>();
      Map<Reason, Long> reasons = new EnumMap<>(Reason.class);
      Map<String, Long> kinds = new TreeMap<>();
      long bytes = 0;
      for (int i = 0; i < RECORDS; i++) {
        FuzzRecords.Fuzzed r = records.next();
        kinds.merge(r.kind(), 1L, Long::sum);
        bytes += r.size();
        Expected e = classify(r.key(), r.value());
        if (e.event() != null) {
          fold.add(e.event());
        } else {
          invalid.add(e);
          reasons.merge(e.reason(), 1L, Long::sum);
        }
        h.produceRaw(r.key(), r.value(), r.headers());
        if (i % 1000 == 999) {
          h.flush();
        }
      }
      h.flush();
      System.out.printf(
          "FuzzIT seed=%d: %,d records (%.1f MB): %,d valid (%d shards of %d targets), %,d"
              + " invalid %s; kinds %s%n",
          seed,
          RECORDS,
          bytes / 1e6,
          RECORDS - invalid.size(),
          fold.shardCount(),
          fold.targets().size(),
          invalid.size(),
          reasons,
          kinds);

      Faults.awaitAllCommitted(services.admin(), h.name, h.eventsTopic, Harness.PATIENCE);
      h.awaitEtcd(fold);
      Harness.await(
          invalid.size() + " dead letters",
          () -> s.metrics().dlqTotal(),
          n -> n >= invalid.size(),
          Harness.PATIENCE);

      assertThat(s.failure()).as("the error that stopped the streams").isNull();
      assertThat(s.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);
      List<KafkaStreams.State> states = s.states();
      assertThat(states.subList(states.indexOf(KafkaStreams.State.RUNNING), states.size()))
          .as("states after the first RUNNING: %s", states)
          .containsOnly(KafkaStreams.State.RUNNING);

      assertDeadLetters(services.readAll(h.name + ".dlq"), invalid);
      for (Reason reason : Reason.values()) {
        assertThat(s.metrics().dlqCount(reason))
            .as("demandfold_dlq_total{reason=%s}", reason.code())
            .isEqualTo(reasons.getOrDefault(reason, 0L));
      }

      Map<String, String> shardLines = new TreeMap<>();
      Map<String, String> tableLines = new TreeMap<>();
      for (var t : fold.targets().entrySet()) {
        for (ShardRecord r : t.getValue().values()) {
          shardLines.put(Keys.shardKey(t.getKey(), r.shard()), ViewJson.shardLine(t.getKey(), r));
        }
        tableLines.put(
            Keys.hex(t.getKey()), ViewJson.tableLine(t.getKey(), fold.table(t.getKey())));
      }
      Harness.awaitEquals(
          "the shard lines",
          () -> h.latest(h.name + ".shard-records"),
          shardLines,
          Harness.PATIENCE);
      Harness.awaitEquals(
          "the table lines",
          () -> h.latest(h.name + ".table-demand"),
          tableLines,
          Harness.PATIENCE);
      assertThat(h.etcdState()).isEqualTo(Harness.expectedEtcd(fold, h.layout()));
      assertThat(s.states()).as("no state change since").isEqualTo(states);
    }
  }

  /**
   * What the pipeline's checks, in its order (key bytes, value, key against value), make of a
   * record: the offline side of the comparison.
   */
  static Expected classify(byte[] key, byte[] value) {
    try {
      if (key == null) {
        throw new InvalidEventException(Reason.NULL_KEY, "record has no key");
      }
      String k;
      try {
        k = Utf8.decode(key);
      } catch (CharacterCodingException e) {
        throw new InvalidEventException(Reason.INVALID_KEY, "key is not valid UTF-8");
      }
      DemandEvent e = EventDecoder.decode(value);
      Keys.requireMatch(k, e);
      return new Expected(key, value, e, null);
    } catch (InvalidEventException x) {
      return new Expected(key, value, null, x.reason());
    }
  }

  /**
   * The DLQ holds each invalid record once with its reason: its key and value, or, for a record cut
   * to fit the DLQ topic, the start of them and their original sizes.
   */
  private static void assertDeadLetters(
      List<ConsumerRecord<byte[], byte[]>> dlq, List<Expected> invalid) throws Exception {
    Map<String, Deque<Expected>> byDigest = new HashMap<>();
    for (Expected e : invalid) {
      byDigest.computeIfAbsent(digest(e.key(), e.value()), d -> new ArrayDeque<>()).add(e);
    }
    List<ConsumerRecord<byte[], byte[]>> cut = new ArrayList<>();
    long matched = 0;
    for (ConsumerRecord<byte[], byte[]> r : dlq) {
      if (Faults.header(r, "demandfold.dlq.truncated") != null) {
        cut.add(r);
        continue;
      }
      Deque<Expected> candidates = byDigest.get(digest(r.key(), r.value()));
      assertThat(candidates)
          .as("a DLQ record that is no invalid record sent (or one too many): key %s", hex(r.key()))
          .isNotNull()
          .isNotEmpty();
      Expected e = candidates.poll();
      assertReason(r, e);
      matched++;
    }
    for (ConsumerRecord<byte[], byte[]> r : cut) {
      String sizes = Faults.header(r, "demandfold.dlq.truncated");
      Expected e =
          byDigest.values().stream()
              .flatMap(Deque::stream)
              .filter(
                  x ->
                      sizes.equals(
                              "key="
                                  + (x.key() == null ? -1 : x.key().length)
                                  + " value="
                                  + (x.value() == null ? -1 : x.value().length))
                          && startsWith(x.key(), r.key())
                          && startsWith(x.value(), r.value()))
              .findFirst()
              .orElseThrow(
                  () -> new AssertionError("a cut DLQ record of no invalid record: " + sizes));
      byDigest.get(digest(e.key(), e.value())).remove(e);
      assertReason(r, e);
      matched++;
    }
    List<Expected> missing = byDigest.values().stream().flatMap(Deque::stream).toList();
    assertThat(missing)
        .as(
            "invalid records not in the DLQ: %s",
            missing.stream().limit(5).map(m -> m.reason() + " key " + hex(m.key())).toList())
        .isEmpty();
    assertThat(matched).isEqualTo(invalid.size());
    System.out.printf(
        "FuzzIT: DLQ holds the %,d invalid records (%d cut to fit), each with its reason %s%n",
        matched, cut.size(), Faults.byReason(dlq));
  }

  private static void assertReason(ConsumerRecord<byte[], byte[]> r, Expected e) {
    assertThat(Faults.header(r, "demandfold.dlq.reason"))
        .as("reason of the record with key %s", hex(e.key()))
        .isEqualTo(e.reason().code());
    assertThat(Faults.header(r, "demandfold.dlq.message")).isNotBlank();
  }

  private static boolean startsWith(byte[] whole, byte[] start) {
    if (whole == null || start == null) {
      return whole == start || (start != null && start.length == 0);
    }
    return start.length <= whole.length
        && Arrays.equals(whole, 0, start.length, start, 0, start.length);
  }

  private static String digest(byte[] key, byte[] value) throws Exception {
    MessageDigest d = MessageDigest.getInstance("SHA-256");
    d.update(key == null ? new byte[] {0} : concat(new byte[] {1}, key));
    d.update(new byte[] {(byte) 0xff});
    d.update(value == null ? new byte[] {0} : concat(new byte[] {1}, value));
    return HexFormat.of().formatHex(d.digest());
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static String hex(byte[] b) {
    if (b == null) {
      return "null";
    }
    String h = HexFormat.of().formatHex(b, 0, Math.min(b.length, 40));
    return b.length > 40 ? h + "..." : h;
  }
}
