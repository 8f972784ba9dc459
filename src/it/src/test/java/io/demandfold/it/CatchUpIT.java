package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.app.DemandfoldService;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.mirror.MirrorMetrics;
import io.demandfold.mirror.MirrorResult;
import io.demandfold.mirror.RecordKind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A catch-up on the log (events an hour old) against a real broker and etcd: the pipeline holds the
 * shards it changes in its changelogged outbox and writes each about once, not once per event, and
 * etcd ends equal to the offline fold; a restart in the middle of the catch-up, on an empty state
 * directory, loses none of the held shards.
 *
 * <p>{@code catchup.interval.ms} is 100 here: a shard dirty in memory during a catch-up would be
 * written every tick, so only the hold keeps the writes to about one per shard.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class CatchUpIT {
  private static final Map<String, String> SETTINGS =
      Map.of("catchup.interval.ms", "100", "outbox.interval.ms", "100");

  /** An hour ago: older than {@code catchup.lag.ms} (10 s) by far. */
  private static long old() {
    return System.currentTimeMillis() - 3_600_000;
  }

  @Test
  void shouldWriteEachShardAboutOnceForACatchUpOfManyEventsAndEndEqualToTheFold(Services services)
      throws Exception {
    try (Harness h = new Harness(services, "catchup")) {
      Random rnd = new Random(31);
      List<DemandEvent> events = RandomStreams.stream(rnd, "c", 4, 200, 20_000);
      Fold expected = Harness.fold(events);
      long shards = shards(expected);
      h.stop(h.start(SETTINGS)); // creates the topics, folds nothing
      produceOld(h, events, rnd);

      DemandfoldService s = h.start(SETTINGS);
      h.awaitEtcd(expected);
      Harness.awaitNothingDirty(s, Harness.PATIENCE);
      MirrorMetrics mirrored = s.metrics().mirror();
      long written = mirrored.count(RecordKind.SHARD, MirrorResult.WRITTEN);
      System.out.printf(
          "CatchUpIT: %d events over %d shards: %d shard records and %d table records written%n",
          events.size(), shards, written, mirrored.count(RecordKind.TABLE, MirrorResult.WRITTEN));
      assertThat(s.metrics().foldedCounts().total()).isEqualTo(events.size());
      assertThat(written)
          .as("shard records written for %d events over %d shards", events.size(), shards)
          .isBetween(shards, shards + shards / 4);
    }
  }

  @Test
  void shouldLoseNoHeldShardWhenRestartedMidCatchUpOnAnEmptyStateDirectory(Services services)
      throws Exception {
    try (Harness h = new Harness(services, "catchup-restart")) {
      Random rnd = new Random(32);
      List<DemandEvent> early = RandomStreams.stream(rnd, "early", 3, 150, 6_000);
      List<DemandEvent> late = RandomStreams.stream(rnd, "late", 3, 150, 30_000);
      h.stop(h.start(SETTINGS));
      produceOld(h, early, rnd);

      DemandfoldService first = h.start(SETTINGS);
      // more old events keep coming while it folds: it stays in its catch-up
      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger sent = new AtomicInteger();
      Thread producer = new Thread(() -> produceUntil(h, late, rnd, stop, sent), "late-events");
      producer.start();
      try {
        Harness.await(
            "the first instance to fold the early events and some late ones",
            () -> first.metrics().foldedCounts().total(),
            n -> n >= early.size() + 2_000,
            Harness.PATIENCE);
        assertThat(first.metrics().mirror().count(RecordKind.SHARD, MirrorResult.WRITTEN))
            .as("shard records written while catching up: held instead")
            .isZero();
        assertThat(first.metrics().dirtyKeys(RecordKind.SHARD))
            .as("held shards count as waiting for etcd")
            .isPositive();
        h.stop(first);

        h.start(
            with(
                SETTINGS,
                "kafka.state.dir",
                Files.createTempDirectory("demandfold-state-").toString()));
      } finally {
        stop.set(true);
        producer.join(TimeUnit.MINUTES.toMillis(2));
      }
      assertThat(producer.isAlive()).isFalse();
      Fold expected = Harness.fold(early);
      late.subList(0, sent.get()).forEach(expected::add);
      h.awaitEtcd(expected);
    }
  }

  /** Produces every event with a timestamp an hour old, and waits until each arrived. */
  private static void produceOld(Harness h, List<DemandEvent> events, Random rnd) throws Exception {
    for (DemandEvent e : events) {
      h.produceAt(key(e), value(e, rnd), old());
    }
    h.flush();
  }

  /**
   * Produces {@code events} an hour old, a hundred at a time, until all are sent or {@code stop};
   * {@code sent} counts those that arrived.
   */
  private static void produceUntil(
      Harness h, List<DemandEvent> events, Random rnd, AtomicBoolean stop, AtomicInteger sent) {
    try {
      for (int i = 0; i < events.size() && !stop.get(); i += 100) {
        List<DemandEvent> chunk = events.subList(i, Math.min(events.size(), i + 100));
        for (DemandEvent e : chunk) {
          h.produceAt(key(e), value(e, rnd), old());
        }
        h.flush();
        sent.addAndGet(chunk.size());
        Thread.sleep(20);
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] key(DemandEvent e) {
    return e.key().getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(DemandEvent e, Random rnd) {
    synchronized (rnd) {
      return rnd.nextBoolean() ? JsonCodec.encodeEvent(e) : AvroCodec.encodeEvent(e);
    }
  }

  private static long shards(Fold f) {
    return f.targets().values().stream().mapToLong(Map::size).sum();
  }

  private static Map<String, String> with(Map<String, String> m, String key, String value) {
    Map<String, String> out = new HashMap<>(m);
    out.put(key, value);
    return out;
  }
}
