package io.demandfold.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.app.ServiceStreamsConfig;
import io.demandfold.config.DemandfoldConfig;
import io.demandfold.config.SettingsLoader;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import io.demandfold.core.Keys;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.core.codec.ViewJson;
import io.demandfold.sim.FleetModel;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The table stage's {@link TargetCache} over its bound ({@code table.cache.shards}): the least
 * recently used targets are dropped, counted ({@code demandfold_table_cache_evictions_total}), and
 * read from the store again when touched; the table views stay those of the offline fold, and of a
 * cache that never drops a target.
 */
class TableCacheTest {
  private static final long START_MS = 1_764_400_000_000L;

  @TempDir Path stateDir;

  private final AtomicInteger evicted = new AtomicInteger();
  private final Map<String, Map<String, Integer>> store = new HashMap<>();
  private final List<String> loads = new ArrayList<>();

  private Map<String, Integer> load(String target) {
    loads.add(target);
    return store.getOrDefault(target, Map.of());
  }

  private void stored(String target, int shards) {
    Map<String, Integer> m = new HashMap<>();
    for (int i = 0; i < shards; i++) {
      m.put("s" + i, i);
    }
    store.put(target, m);
  }

  @Test
  void shouldDropTheLeastRecentlyUsedTargetToStayWithinItsBudget() {
    TargetCache<Integer> cache = new TargetCache<>(5, evicted::incrementAndGet);
    stored("a", 2);
    stored("b", 2);
    stored("c", 2);
    cache.get("a", this::load);
    cache.get("b", this::load);
    cache.get("a", this::load); // a is now the more recently used
    assertThat(loads).containsExactly("a", "b");
    assertThat(evicted).hasValue(0);

    cache.get("c", this::load);
    assertThat(evicted).as("targets dropped").hasValue(1);
    assertThat(cache.holds("b")).as("b, least recently used").isFalse();
    assertThat(cache.holds("a")).isTrue();
    assertThat(cache.holds("c")).isTrue();
    assertThat(cache.get("b", this::load)).isEqualTo(store.get("b"));
    assertThat(loads).containsExactly("a", "b", "c", "b");
    assertThat(evicted).hasValue(2);
  }

  @Test
  void shouldKeepTheTargetItLoadsOrChangesAndDropTheOthers() {
    TargetCache<Integer> cache = new TargetCache<>(4, evicted::incrementAndGet);
    stored("a", 2);
    stored("b", 2);
    cache.get("a", this::load);
    cache.get("b", this::load);
    cache.update("a", "new", 9);
    assertThat(cache.holds("a")).as("the target changed").isTrue();
    assertThat(cache.peek("a", "new")).isEqualTo(9);
    assertThat(cache.holds("b")).isFalse();
    assertThat(evicted).hasValue(1);

    cache.update("b", "s0", 7); // not cached: nothing to change, nothing dropped
    assertThat(cache.holds("b")).isFalse();
    assertThat(evicted).hasValue(1);
  }

  @Test
  void shouldNotHoldATargetOfMoreShardsThanItsBudget() {
    TargetCache<Integer> cache = new TargetCache<>(3, evicted::incrementAndGet);
    stored("small", 2);
    stored("wide", 4);
    cache.get("small", this::load);
    assertThat(cache.get("wide", this::load)).isEqualTo(store.get("wide"));
    assertThat(cache.holds("wide")).isFalse();
    assertThat(cache.holds("small")).as("not dropped for a target it does not hold").isTrue();
    assertThat(evicted).hasValue(0);
  }

  @Test
  void shouldReadADroppedTargetAgainWithWhatChangedMeanwhile() {
    TargetCache<Integer> cache = new TargetCache<>(2, evicted::incrementAndGet);
    stored("a", 2);
    stored("b", 2);
    cache.get("a", this::load);
    cache.get("b", this::load);
    assertThat(cache.holds("a")).isFalse();
    store.get("a").put("s0", 100); // the store changed while a was not held
    assertThat(cache.get("a", this::load)).containsEntry("s0", 100).hasSize(2);
  }

  /**
   * Through the topology, with {@code table.cache.shards} at 8 against the default: narrow targets
   * (3 shards) are held a few at a time and dropped as others are counted, wide ones (12) never
   * held; every table line of every round equals the offline fold's and the default run's, and the
   * small cache dropped targets while the default one dropped none.
   */
  @Test
  void shouldEmitTheFoldsTableViewsWhileDroppingTargetsFromASmallCache() {
    FleetModel narrow = new FleetModel(7, 12, 3);
    FleetModel wide = new FleetModel(8, 2, 12);
    Fold expected = new Fold();
    try (Run small = new Run(8, stateDir.resolve("small"));
        Run large = new Run(50_000, stateDir.resolve("large"))) {
      for (int round = 0; round < 40; round++) {
        for (int i = 0; i < 30; i++) {
          DemandEvent e =
              i % 3 == 0 ? wideEvent(wide.next(small.clockMs)) : narrow.next(small.clockMs);
          expected.add(e);
          small.pipe(e);
          large.pipe(e);
        }
        small.tick();
        large.tick();
        for (String target : expected.targets().keySet()) {
          String want = ViewJson.tableLine(target, expected.table(target));
          assertThat(small.tables.get(Keys.hex(target)))
              .as("round %d, %s, table.cache.shards=8", round, target)
              .isEqualTo(want);
          assertThat(large.tables.get(Keys.hex(target)))
              .as("round %d, %s, default table.cache.shards", round, target)
              .isEqualTo(want);
        }
      }
      assertThat(expected.targets()).hasSize(14);
      assertThat(small.metrics.tableCacheEvictions()).as("targets dropped at 8").isPositive();
      assertThat(large.metrics.tableCacheEvictions()).as("targets dropped at 50,000").isZero();
      System.out.printf(
          "TableCacheTest: %d targets dropped from a cache of 8 shards over 40 rounds%n",
          small.metrics.tableCacheEvictions());
    }
  }

  private static DemandEvent wideEvent(DemandEvent e) {
    return new DemandEvent("wide-" + e.target(), e.record());
  }

  /** One pipeline on TopologyTestDriver, with the service's streams configuration. */
  private static final class Run implements AutoCloseable {
    final PipelineMetrics metrics = new PipelineMetrics(new SimpleMeterRegistry());
    final Map<String, String> tables = new LinkedHashMap<>();
    final TopologyTestDriver driver;
    final TestInputTopic<byte[], byte[]> events;
    final TestOutputTopic<String, String> out;
    final StreamSettings settings;
    long clockMs = START_MS;

    Run(int tableCacheShards, Path stateDir) {
      DemandfoldConfig config =
          new SettingsLoader()
              .flag(DemandfoldConfig.BOOTSTRAP_SERVERS, "127.0.0.1:9", "test")
              .flag(DemandfoldConfig.APPLICATION_ID, "test", "test")
              .flag(DemandfoldConfig.TABLE_CACHE_SHARDS, Integer.toString(tableCacheShards), "test")
              .load();
      settings = config.streams();
      assertThat(settings.tableCacheShards()).isEqualTo(tableCacheShards);
      Properties p = ServiceStreamsConfig.of(config, metrics);
      p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
      // at least once, as DemandTopologyTest: the driver's exactly-once drops dead letters
      p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
      driver =
          new TopologyTestDriver(
              DemandTopology.build(settings, null, metrics), p, Instant.ofEpochMilli(START_MS));
      events =
          driver.createInputTopic(
              settings.eventsTopic(), new ByteArraySerializer(), new ByteArraySerializer());
      out =
          driver.createOutputTopic(
              settings.tableDemandTopic(), new StringDeserializer(), new StringDeserializer());
    }

    void pipe(DemandEvent e) {
      events.pipeInput(e.key().getBytes(StandardCharsets.UTF_8), JsonCodec.encodeEvent(e), clockMs);
    }

    /** An emit interval, then a table interval: every change reaches the table lines. */
    void tick() {
      advance(settings.emitIntervalMs());
      advance(settings.tableIntervalMs());
      out.readRecordsToList().forEach(r -> tables.put(r.key(), r.value()));
    }

    private void advance(long ms) {
      clockMs += ms;
      driver.advanceWallClockTime(Duration.ofMillis(ms));
    }

    @Override
    public void close() {
      driver.close();
    }
  }
}
