package io.demandfold.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.app.ServiceStreamsConfig;
import io.demandfold.config.DemandfoldConfig;
import io.demandfold.config.SettingsLoader;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Events;
import io.demandfold.core.Fold;
import io.demandfold.core.InvalidEventException.Reason;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableView;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.core.codec.ViewJson;
import io.demandfold.sim.FleetModel;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The topology without etcd, on TopologyTestDriver: fold, coalesced emits, table views, DLQ, and
 * the changelogs the decoded stores write at each commit.
 */
class DemandTopologyTest {
  private static final String DLQ = "demand.events.dlq";

  /** The defaults, with tables held longer, so that a table written early is told apart. */
  private static final StreamSettings SETTINGS = tablesEvery(StreamSettings.defaults(), 5000);

  private static final long TABLE_INTERVAL = SETTINGS.tableIntervalMs();
  private static final long EMIT_INTERVAL = SETTINGS.emitIntervalMs();
  private static final long OUTBOX_INTERVAL = StreamSettings.defaults().outboxIntervalMs();
  private static final long START_MS = 1_764_400_000_000L;
  private long clockMs;
  private TopologyTestDriver driver;
  private TestInputTopic<byte[], byte[]> events;
  private TestOutputTopic<String, String> shards;
  private TestOutputTopic<String, String> tables;
  private TestOutputTopic<byte[], byte[]> dlq;
  private PipelineMetrics metrics;
  private final InputLag inputLag = new InputLag();

  /** Each test's own state directory: the default under /tmp is shared by every build here. */
  @TempDir Path stateDir;

  @BeforeEach
  void setUp() {
    start(SETTINGS);
  }

  private void start(StreamSettings s) {
    metrics = new PipelineMetrics(new SimpleMeterRegistry());
    Topology t = DemandTopology.build(s, null, metrics, inputLag);
    // the service's own configuration: its DLQ handlers, production handler and commit interval
    DemandfoldConfig config =
        new SettingsLoader()
            .flag(DemandfoldConfig.BOOTSTRAP_SERVERS, "127.0.0.1:9", "test")
            .flag(DemandfoldConfig.TOPICS_DLQ, DLQ, "test")
            .flag(DemandfoldConfig.APPLICATION_ID, "test", "test")
            .load();
    Properties p = ServiceStreamsConfig.of(config, metrics);
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    // but at least once: under exactly-once the driver drops the dead letters of the
    // deserialization handler (the ITs show them with exactly-once against a real broker)
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
    // events carry the wall clock as their time, as a live producer's do: the emit pacing reads
    // the lag of the newest event behind the wall clock
    clockMs = START_MS;
    driver = new TopologyTestDriver(t, p, java.time.Instant.ofEpochMilli(START_MS));
    events =
        driver.createInputTopic(
            s.eventsTopic(), new ByteArraySerializer(), new ByteArraySerializer());
    shards =
        driver.createOutputTopic(
            s.shardRecordsTopic(), new StringDeserializer(), new StringDeserializer());
    tables =
        driver.createOutputTopic(
            s.tableDemandTopic(), new StringDeserializer(), new StringDeserializer());
    dlq = driver.createOutputTopic(DLQ, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  @AfterEach
  void tearDown() {
    driver.close();
  }

  @Test
  void shouldEmitTheSameLinesAsTheOfflineFoldInBothEncodings() throws Exception {
    List<String> lines = Files.readAllLines(Path.of("examples/named-cases.jsonl"));
    Fold expected = new Fold();
    int i = 0;
    for (String line : lines) {
      DemandEvent e = JsonCodec.decodeEvent(line.getBytes(StandardCharsets.UTF_8));
      expected.add(e);
      byte[] value =
          i++ % 2 == 0 ? line.getBytes(StandardCharsets.UTF_8) : AvroCodec.encodeEvent(e);
      events.pipeInput(e.key().getBytes(StandardCharsets.UTF_8), value, clockMs);
    }
    advance(Duration.ofMillis(EMIT_INTERVAL));
    advance(Duration.ofMillis(TABLE_INTERVAL));

    Map<String, String> shardLines = latest(shards.readRecordsToList());
    Map<String, String> tableLines = latest(tables.readRecordsToList());
    for (var t : expected.targets().entrySet()) {
      for (ShardRecord r : t.getValue().values()) {
        assertThat(shardLines.get(Keys.shardKey(t.getKey(), r.shard())))
            .isEqualTo(ViewJson.shardLine(t.getKey(), r));
      }
      assertThat(tableLines.get(Keys.hex(t.getKey())))
          .isEqualTo(ViewJson.tableLine(t.getKey(), expected.table(t.getKey())));
    }
    long shardCount = expected.targets().values().stream().mapToLong(Map::size).sum();
    assertThat(shardLines).as("one line per shard").hasSize((int) shardCount);
    assertThat(dlq.isEmpty()).isTrue();
  }

  /**
   * The table stage keeps each target's view up to date as its shards change, and counts it again
   * only when it cannot (the shard holding the oldest pending time moved on): over a realistic mix
   * of flushes, merges and scans, emitted table by table between ticks, every table line is the
   * offline fold's view of the events sent so far.
   */
  @Test
  void shouldKeepEveryTableViewEqualToTheFoldAcrossManyTicks() {
    FleetModel model = new FleetModel(7, 4, 12);
    Fold expected = new Fold();
    Map<String, String> tableLines = new LinkedHashMap<>();
    for (int round = 0; round < 40; round++) {
      for (int i = 0; i < 25; i++) {
        DemandEvent e = model.next(clockMs);
        expected.add(e);
        pipe(e.key(), JsonCodec.encodeEvent(e));
      }
      advance(Duration.ofMillis(EMIT_INTERVAL));
      advance(Duration.ofMillis(TABLE_INTERVAL));
      tableLines.putAll(latest(tables.readRecordsToList()));
      for (String target : expected.targets().keySet()) {
        assertThat(tableLines.get(Keys.hex(target)))
            .as("round %d, target %s", round, target)
            .isEqualTo(ViewJson.tableLine(target, expected.table(target)));
      }
    }
  }

  /**
   * A target's view after a tick is kept up to date by the next changes: the shard holding the
   * oldest pending time is merged (the oldest moves to another shard's), a new shard joins, and a
   * shard that is not the oldest flushes again; each tick's line is the offline fold's.
   */
  @Test
  void shouldMoveTheOldestPendingTimeOnWhenTheShardHoldingItIsMerged() {
    Fold expected = new Fold();
    List<List<DemandEvent>> steps =
        List.of(
            List.of(
                new DemandEvent("t", Events.writer("a", 1, 1, 100)),
                new DemandEvent("t", Events.writer("b", 1, 1, 200)),
                new DemandEvent("t", Events.writer("c", 1, 1, 300))),
            List.of(new DemandEvent("t", Events.executor("a", 1, 1, 1, 400))),
            List.of(new DemandEvent("t", Events.writer("d", 2, 1, 150))),
            List.of(
                new DemandEvent("t", Events.writer("c", 2, 1, 500)),
                new DemandEvent("t", Events.executor("b", 1, 1, 1, 600))),
            List.of(new DemandEvent("t", Events.executor("d", 2, 2, 1, 700))));
    List<String> seen = new java.util.ArrayList<>();
    for (List<DemandEvent> step : steps) {
      for (DemandEvent e : step) {
        expected.add(e);
        pipe(e.key(), JsonCodec.encodeEvent(e));
      }
      advance(Duration.ofMillis(EMIT_INTERVAL));
      advance(Duration.ofMillis(TABLE_INTERVAL));
      String line = latest(tables.readRecordsToList()).get(Keys.hex("t"));
      assertThat(line).isEqualTo(ViewJson.tableLine("t", expected.table("t")));
      seen.add(line);
    }
    assertThat(seen.get(1)).contains("\"oldest_pending_ms\":200");
    assertThat(seen.get(4)).contains("\"oldest_pending_ms\":300");
  }

  @Test
  void shouldCoalesceChangesBetweenPunctuationsAndSkipNoOps() {
    String key = Keys.shardKey("t", "s");
    for (int g = 1; g <= 50; g++) {
      pipe(key, JsonCodec.encodeEvent(new DemandEvent("t", Events.writer("s", g, 1, g * 1000L))));
    }
    advance(Duration.ofMillis(EMIT_INTERVAL));
    List<TestRecord<String, String>> out = shards.readRecordsToList();
    assertThat(out).hasSize(1);
    assertThat(out.get(0).value()).contains("\"pending_generations\":50");

    pipe(key, JsonCodec.encodeEvent(new DemandEvent("t", Events.writer("s", 7, 1, 7000))));
    advance(Duration.ofMillis(EMIT_INTERVAL));
    assertThat(shards.isEmpty()).isTrue();
    assertThat(metrics.foldedCounts()).isEqualTo(new PipelineMetrics.FoldedCounts(50, 1));
  }

  @Test
  void shouldKeepTheTableViewOfEveryShardOfATarget() {
    pipe(
        Keys.shardKey("t", "a"),
        JsonCodec.encodeEvent(new DemandEvent("t", Events.writer("a", 5, 1, 100))));
    pipe(
        Keys.shardKey("t", "b"),
        JsonCodec.encodeEvent(new DemandEvent("t", Events.executor("b", 9, 3, 1, 50))));
    advance(Duration.ofMillis(EMIT_INTERVAL));
    advance(Duration.ofMillis(TABLE_INTERVAL));
    Map<String, String> out = latest(tables.readRecordsToList());
    assertThat(out.get(Keys.hex("t")))
        .isEqualTo(
            "{\"kind\":\"table\",\"target\":\"t\",\"pending_generations\":11,\"pending_bytes\":0,"
                + "\"oldest_pending_ms\":100,\"oldest_pending_exact_ms\":null,\"shards\":2}");
    TableView stored =
        driver.<String, TableView>getKeyValueStore(Names.TABLE_DEMAND).get(Keys.hex("t"));
    assertThat(stored.pendingGenerations()).isEqualTo(11);
  }

  @Test
  void shouldDeadLetterBadInputWithTheReasonAndKeepFoldingAroundIt() {
    String key = Keys.shardKey("t", "s");
    byte[] good1 = JsonCodec.encodeEvent(new DemandEvent("t", Events.writer("s", 1, 1, 1000)));
    byte[] good2 = JsonCodec.encodeEvent(new DemandEvent("t", Events.writer("s", 2, 1, 2000)));
    byte[] otherShard = JsonCodec.encodeEvent(new DemandEvent("t", Events.writer("x", 2, 1, 2000)));
    Map<String, byte[][]> bad = new LinkedHashMap<>();
    bad.put("undecodable", new byte[][] {bytes(key), bytes("garbage")});
    bad.put("unknown_version", new byte[][] {bytes(key), bytes("{\"v\":9,\"target\":\"t\"}")});
    bad.put(
        "invalid_field",
        new byte[][] {
          bytes(key), bytes("{\"target\":\"t\",\"shard\":\"s\",\"sealed_through\":-1}")
        });
    bad.put("null_key", new byte[][] {null, good1});
    bad.put("null_value", new byte[][] {bytes(key), null});
    bad.put("invalid_key", new byte[][] {bytes("no-slash"), good1});
    bad.put("key_mismatch", new byte[][] {bytes(key), otherShard});

    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(DeadLetters.class);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logged =
        new ch.qos.logback.core.read.ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    try {
      pipe(key, good1);
      for (byte[][] kv : bad.values()) {
        events.pipeInput(kv[0], kv[1], clockMs);
      }
      pipe(key, good2);
      advance(Duration.ofMillis(EMIT_INTERVAL));
    } finally {
      logger.detachAppender(logged);
    }
    // the first dead letter of each reason is logged at once
    for (String reason : bad.keySet()) {
      assertThat(logged.list)
          .as(reason)
          .anySatisfy(
              e ->
                  assertThat(e.getFormattedMessage())
                      .startsWith("dead-lettering")
                      .contains(": " + reason + ": "));
    }

    List<TestRecord<byte[], byte[]>> dead = dlq.readRecordsToList();
    assertThat(dead).hasSize(bad.size());
    int i = 0;
    for (var e : bad.entrySet()) {
      TestRecord<byte[], byte[]> r = dead.get(i++);
      assertThat(header(r, DeadLetters.REASON_HEADER)).isEqualTo(e.getKey());
      assertThat(r.key()).isEqualTo(e.getValue()[0]);
      assertThat(r.value()).isEqualTo(e.getValue()[1]);
      assertThat(header(r, "__streams.errors.topic")).isEqualTo("demand.events");
      assertThat(header(r, "__streams.errors.offset")).isNotNull();
      assertThat(metrics.dlqCount(Reason.valueOf(e.getKey().toUpperCase()))).isEqualTo(1);
    }
    assertThat(latest(shards.readRecordsToList()).get(key)).contains("\"pending_generations\":2");
  }

  @Test
  void shouldDeadLetterANewShardBeyondTheKeysOfATaskAndKeepFoldingTheOthers() {
    driver.close();
    start(with(SETTINGS, TABLE_INTERVAL, 3, SETTINGS.shardsPerTarget()));
    for (String shard : List.of("a", "b", "c", "d")) {
      pipe(
          Keys.shardKey("t", shard),
          JsonCodec.encodeEvent(new DemandEvent("t", Events.writer(shard, 1, 1, 1000))));
    }
    pipe(
        Keys.shardKey("t", "a"),
        JsonCodec.encodeEvent(new DemandEvent("t", Events.writer("a", 2, 1, 2000))));
    advance(Duration.ofMillis(EMIT_INTERVAL));

    List<TestRecord<byte[], byte[]>> dead = dlq.readRecordsToList();
    assertThat(dead).hasSize(1);
    assertThat(header(dead.get(0), DeadLetters.REASON_HEADER)).isEqualTo("too_many_keys");
    assertThat(header(dead.get(0), DeadLetters.MESSAGE_HEADER)).contains("limits.keys.per.task=3");
    assertThat(new String(dead.get(0).key(), StandardCharsets.UTF_8))
        .isEqualTo(Keys.shardKey("t", "d"));
    assertThat(metrics.dlqCount(Reason.TOO_MANY_KEYS)).isEqualTo(1);
    Map<String, String> out = latest(shards.readRecordsToList());
    assertThat(out)
        .containsOnlyKeys(
            Keys.shardKey("t", "a"), Keys.shardKey("t", "b"), Keys.shardKey("t", "c"));
    assertThat(out.get(Keys.shardKey("t", "a"))).contains("\"pending_generations\":2");
  }

  @Test
  void shouldLeaveANewShardBeyondTheShardsOfATargetOutOfItsTable() {
    driver.close();
    start(with(SETTINGS, TABLE_INTERVAL, SETTINGS.keysPerTask(), 2));
    for (String shard : List.of("a", "b", "c")) {
      pipe(
          Keys.shardKey("t", shard),
          JsonCodec.encodeEvent(new DemandEvent("t", Events.writer(shard, 1, 1, 1000))));
    }
    pipe(
        Keys.shardKey("u", "a"),
        JsonCodec.encodeEvent(new DemandEvent("u", Events.writer("a", 1, 1, 1000))));
    advance(Duration.ofMillis(EMIT_INTERVAL));
    advance(Duration.ofMillis(TABLE_INTERVAL));

    List<TestRecord<byte[], byte[]>> dead = dlq.readRecordsToList();
    assertThat(dead).hasSize(1);
    assertThat(header(dead.get(0), DeadLetters.REASON_HEADER)).isEqualTo("too_many_shards");
    assertThat(header(dead.get(0), DeadLetters.MESSAGE_HEADER))
        .contains("limits.shards.per.target=2");
    assertThat(metrics.dlqCount(Reason.TOO_MANY_SHARDS)).isEqualTo(1);
    // the shard itself is still folded; only the table leaves it out
    assertThat(latest(shards.readRecordsToList())).hasSize(4);
    Map<String, String> t = latest(tables.readRecordsToList());
    assertThat(t.get(Keys.hex("t"))).endsWith("\"shards\":2}");
    assertThat(t.get(Keys.hex("u"))).endsWith("\"shards\":1}");
  }

  @Test
  void shouldHoldTableViewsForTheTableIntervalWhileShardsKeepChanging() {
    String key = Keys.shardKey("t", "s");
    long now = 0;
    for (int g = 1; now + OUTBOX_INTERVAL < TABLE_INTERVAL; g++) {
      pipe(key, JsonCodec.encodeEvent(new DemandEvent("t", Events.writer("s", g, 1, g * 1000L))));
      now += advanceInTicks(OUTBOX_INTERVAL);
    }
    assertThat(shards.readRecordsToList()).hasSizeGreaterThan(1);
    assertThat(tables.isEmpty()).as("no table view before the table interval").isTrue();

    advanceInTicks(TABLE_INTERVAL - now);
    assertThat(latest(tables.readRecordsToList())).containsKey(Keys.hex("t"));
  }

  @Test
  void shouldEmitTableViewsEarlyOnceNoShardChangedForTwoEmitIntervals() {
    String key = Keys.shardKey("t", "s");
    pipe(key, JsonCodec.encodeEvent(new DemandEvent("t", Events.writer("s", 3, 1, 3000))));
    long now = advanceInTicks(EMIT_INTERVAL);
    assertThat(shards.readRecordsToList()).hasSize(1);

    now += advanceInTicks(2 * EMIT_INTERVAL - OUTBOX_INTERVAL);
    assertThat(tables.isEmpty()).as("within two emit intervals of the change").isTrue();
    now += advanceInTicks(2 * OUTBOX_INTERVAL);

    assertThat(now).isLessThan(TABLE_INTERVAL);
    assertThat(latest(tables.readRecordsToList()).get(Keys.hex("t")))
        .contains("\"pending_generations\":3");
  }

  @Test
  void shouldChangelogTheFoldedRecordsAtEveryCommit() {
    String key = Keys.shardKey("t", "s");
    ShardRecord folded = null;
    for (int g = 1; g <= 5; g++) {
      ShardRecord e = Events.writer("s", g, 1, g * 1000L);
      folded = io.demandfold.core.Join.join(folded, e);
      pipe(key, JsonCodec.encodeEvent(new DemandEvent("t", e)));
    }
    TestOutputTopic<String, byte[]> changelog =
        driver.createOutputTopic(
            "test-" + Names.SHARD_RECORDS + "-changelog",
            new StringDeserializer(),
            new ByteArrayDeserializer());
    List<TestRecord<String, byte[]>> written = changelog.readRecordsToList();
    assertThat(written).isNotEmpty();
    TestRecord<String, byte[]> last = written.get(written.size() - 1);
    assertThat(last.key()).isEqualTo(key);
    assertThat(AvroCodec.decodeRecord(last.value())).isEqualTo(folded);

    TestOutputTopic<String, Long> outbox =
        driver.createOutputTopic(
            "test-" + Names.SHARD_OUTBOX + "-changelog",
            new StringDeserializer(),
            new org.apache.kafka.common.serialization.LongDeserializer());
    Map<String, Long> after = new LinkedHashMap<>();
    outbox.readRecordsToList().forEach(r -> after.put(r.key(), r.value()));
    assertThat(after).as("dirty until emitted").containsKey(key);
    assertThat(after.get(key)).isNotNull();
    advanceInTicks(EMIT_INTERVAL);
    assertThat(shards.readRecordsToList()).as("emitted").hasSize(1);
    outbox.readRecordsToList().forEach(r -> after.put(r.key(), r.value()));
    assertThat(after)
        .as("no mirror here: settled once emitted, the marker standing for it")
        .containsEntry(key, null)
        .containsKey(Outbox.UNMIRRORED);
    assertThat(after.get(Outbox.UNMIRRORED)).isNotNull();
  }

  /**
   * A catch-up (events an hour old) holds every shard it changes: nothing is emitted while it
   * lasts, twice catchup.interval.ms here, and once the task has folded nothing for a few ticks
   * each shard is emitted once, in key order, with the fold's record.
   */
  @Test
  void shouldEmitEachShardOnceForAWholeCatchUp() {
    Fold expected = new Fold();
    List<TestRecord<String, String>> during = catchUp(expected, 2 * SETTINGS.catchupIntervalMs());
    assertThat(during).as("lines emitted while catching up").isEmpty();

    advanceInTicks((ShardJoinProcessor.IDLE_TICKS + 1) * OUTBOX_INTERVAL);
    List<TestRecord<String, String>> after = shards.readRecordsToList();
    List<String> keys = after.stream().map(TestRecord::key).toList();
    assertThat(keys).as("each shard once").doesNotHaveDuplicates();
    assertThat(keys).as("in key order").isSortedAccordingTo(Keys.UTF8_ORDER);
    Map<String, String> lines = latest(after);
    for (var t : expected.targets().entrySet()) {
      for (ShardRecord r : t.getValue().values()) {
        assertThat(lines.get(Keys.shardKey(t.getKey(), r.shard())))
            .isEqualTo(ViewJson.shardLine(t.getKey(), r));
      }
    }
    assertThat(lines).hasSize(20);
  }

  /**
   * A task that catches up and is handed no event for many ticks (a busy stream thread polls its
   * partition now and then) holds on while its consumer says the partition has records it has not
   * fetched; once the partition is fetched to its end, it lets go.
   */
  @Test
  void shouldHoldOnWhileItsPartitionIsBehindEvenWithoutEventsForManyTicks() {
    Fold expected = new Fold();
    assertThat(catchUp(expected, 1_000)).isEmpty();
    inputLag.read(
        InputLagTest.metrics(
            InputLagTest.lag("test-consumer", "records-lag", SETTINGS.eventsTopic(), 0, 5_000.0)));
    advanceInTicks(4 * ShardJoinProcessor.IDLE_TICKS * OUTBOX_INTERVAL);
    assertThat(shards.readRecordsToList()).as("held while its partition is behind").isEmpty();

    inputLag.read(
        InputLagTest.metrics(
            InputLagTest.lag("test-consumer", "records-lag", SETTINGS.eventsTopic(), 0, 0.0)));
    advanceInTicks(2 * OUTBOX_INTERVAL);
    long folded = expected.targets().values().stream().mapToLong(Map::size).sum();
    assertThat(latest(shards.readRecordsToList())).as("let go once fetched").hasSize((int) folded);
  }

  /**
   * A catch-up longer than catchup.hold.max.ms lets go of the shards it held once a key has been
   * held that long, all in one pass, and holds them again after it.
   */
  @Test
  void shouldLetGoOfHeldShardsOnceAKeyWasHeldForTheHoldBound() {
    driver.close();
    start(holdingFor(SETTINGS, 2_000));
    Fold expected = new Fold();
    List<TestRecord<String, String>> during = catchUp(expected, 10_000);
    assertThat(during).as("lines emitted while catching up").isNotEmpty();
    long firstMs = during.get(0).timestamp() - START_MS;
    assertThat(firstMs)
        .as("the first pass: once held for the bound, before catchup.interval.ms")
        .isGreaterThanOrEqualTo(2_000)
        .isLessThan(SETTINGS.catchupIntervalMs());
    Map<String, Long> perShard = new LinkedHashMap<>();
    during.forEach(r -> perShard.merge(r.key(), 1L, Long::sum));
    assertThat(perShard).hasSize(20);
    assertThat(perShard.values())
        .as("each shard once a pass, at most one pass every 2 s")
        .allMatch(n -> n <= 10_000 / 2_000);
  }

  /**
   * A fold that stays 20 s behind (a live fleet it cannot quite keep up with, past catchup.lag.ms)
   * holds a changed shard about as long as it is behind, not for catchup.hold.max.ms (5 min): etcd
   * is never further behind than twice the fold.
   */
  @Test
  void shouldHoldShardsNoLongerThanTheTaskIsBehind() {
    driver.close();
    start(holdingFor(SETTINGS, 300_000));
    Fold expected = new Fold();
    List<TestRecord<String, String>> during = catchUp(expected, 60_000, 20_000);
    assertThat(during).as("lines emitted while 20 s behind").isNotEmpty();
    long firstMs = during.get(0).timestamp() - START_MS;
    assertThat(firstMs)
        .as("the first pass: once a key was held as long as the task is behind (20 s)")
        .isGreaterThanOrEqualTo(20_000)
        .isLessThan(25_000);
    Map<String, Long> perShard = new LinkedHashMap<>();
    during.forEach(r -> perShard.merge(r.key(), 1L, Long::sum));
    assertThat(perShard.values())
        .as("each shard about once a pass, one pass about every 20 s")
        .allMatch(n -> n <= 60_000 / 20_000);
  }

  /**
   * Pipes events an hour old, three a tick for {@code ms}, over 4 tables of 5 shards, from the
   * second tick of the task on (its first event comes after a tick that saw none); returns the
   * shard lines emitted meanwhile.
   */
  private List<TestRecord<String, String>> catchUp(Fold expected, long ms) {
    return catchUp(expected, ms, 3_600_000);
  }

  /** As {@link #catchUp(Fold, long)}, of events {@code ageMs} old. */
  private List<TestRecord<String, String>> catchUp(Fold expected, long ms, long ageMs) {
    FleetModel model = new FleetModel(11, 4, 5);
    List<TestRecord<String, String>> during = new java.util.ArrayList<>();
    advance(Duration.ofMillis(OUTBOX_INTERVAL));
    for (long t = 0; t < ms; t += OUTBOX_INTERVAL) {
      for (int i = 0; i < 3; i++) {
        long old = clockMs - ageMs;
        DemandEvent e = model.next(old);
        expected.add(e);
        events.pipeInput(bytes(e.key()), JsonCodec.encodeEvent(e), old);
      }
      advance(Duration.ofMillis(OUTBOX_INTERVAL));
      during.addAll(shards.readRecordsToList());
    }
    return during;
  }

  private static StreamSettings holdingFor(StreamSettings s, long holdMaxMs) {
    return new StreamSettings(
        s.eventsTopic(),
        s.misroutedTopic(),
        s.eventsPartitions(),
        s.shardRecordsTopic(),
        s.tableDemandTopic(),
        s.outboxIntervalMs(),
        s.emitIntervalMs(),
        s.catchupLagMs(),
        s.catchupIntervalMs(),
        holdMaxMs,
        s.emitPacingLagMs(),
        s.tableIntervalMs(),
        s.mirrorShards(),
        s.mirrorTables(),
        s.inMemoryStores(),
        s.tableCacheShards(),
        s.shardCacheRecords(),
        s.keysPerTask(),
        s.shardsPerTarget());
  }

  private static StreamSettings tablesEvery(StreamSettings s, long tableIntervalMs) {
    return with(s, tableIntervalMs, s.keysPerTask(), s.shardsPerTarget());
  }

  private static StreamSettings with(
      StreamSettings s, long tableIntervalMs, int keysPerTask, int shardsPerTarget) {
    return new StreamSettings(
        s.eventsTopic(),
        s.misroutedTopic(),
        s.eventsPartitions(),
        s.shardRecordsTopic(),
        s.tableDemandTopic(),
        s.outboxIntervalMs(),
        s.emitIntervalMs(),
        s.catchupLagMs(),
        s.catchupIntervalMs(),
        s.catchupHoldMaxMs(),
        s.emitPacingLagMs(),
        tableIntervalMs,
        s.mirrorShards(),
        s.mirrorTables(),
        s.inMemoryStores(),
        s.tableCacheShards(),
        s.shardCacheRecords(),
        keysPerTask,
        shardsPerTarget);
  }

  /** Advances the wall clock by {@code ms} in steps of the outbox interval; returns {@code ms}. */
  private long advanceInTicks(long ms) {
    for (long done = 0; done < ms; done += OUTBOX_INTERVAL) {
      advance(Duration.ofMillis(Math.min(OUTBOX_INTERVAL, ms - done)));
    }
    return ms;
  }

  private void advance(Duration d) {
    clockMs += d.toMillis();
    driver.advanceWallClockTime(d);
  }

  private void pipe(String key, byte[] value) {
    events.pipeInput(bytes(key), value, clockMs);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String header(TestRecord<byte[], byte[]> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  private static <V> Map<String, V> latest(List<TestRecord<String, V>> records) {
    Map<String, V> out = new LinkedHashMap<>();
    records.forEach(r -> out.put(r.key(), r.value()));
    return out;
  }
}
