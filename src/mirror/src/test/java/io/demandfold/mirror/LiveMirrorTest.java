package io.demandfold.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.concurrency.limits.limit.FixedLimit;
import io.demandfold.core.Keys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The live mirror's thread and lanes with a recording writer in place of etcd: batches, calls in
 * flight, a key never written twice at once, failures (an error of etcd pauses every key, a key
 * etcd refused for itself only that key), the byte budget, acknowledgements. What the thread did
 * not do is proved by what it did next: it looked and found nothing due ({@link
 * LiveMirror#idleLooks}), or found the limit reached ({@link LiveMirror#permitsRefused}).
 */
class LiveMirrorTest {
  /** One call the writer received: its keys, values, and the outcomes the test completes. */
  record Call(List<String> keys, List<String> values, List<CompletableFuture<MirrorOutcome>> out) {
    void complete(MirrorResult result) {
      out.forEach(f -> f.complete(MirrorOutcome.of(result, 0, false)));
    }
  }

  private final List<Call> calls = new CopyOnWriteArrayList<>();

  /** How far the mirror's clock runs ahead of the wall clock (a test moves it to let keys due). */
  private final AtomicLong shift = new AtomicLong();

  private final MirrorMetrics metrics = MirrorMetrics.detached();
  private LiveMirror mirror;

  private MirrorLane<String> lane(int limit, int batchKeys, long bufferBytes) {
    return lane(limit, batchKeys, bufferBytes, () -> System.currentTimeMillis() + shift.get());
  }

  /** A lane of a mirror on {@code clockMs}; a refused key backs off half its ceiling. */
  private MirrorLane<String> lane(
      int limit, int batchKeys, long bufferBytes, java.util.function.LongSupplier clockMs) {
    mirror =
        new LiveMirror(
            null,
            metrics,
            FixedLimit.of(limit),
            batchKeys,
            bufferBytes,
            0,
            "test-mirror",
            clockMs,
            new KeyBackoff(() -> 0.0));
    return mirror.lane(
        "test",
        RecordKind.SHARD,
        (keys, values) -> {
          List<CompletableFuture<MirrorOutcome>> out = new ArrayList<>();
          keys.forEach(k -> out.add(new CompletableFuture<>()));
          calls.add(new Call(List.copyOf(keys), List.copyOf(values), out));
          return out;
        });
  }

  /** Waits until the thread looked twice more and found nothing due: what it had, it started. */
  private void awaitTwoIdleLooks() throws InterruptedException {
    long from = mirror.idleLooks();
    // the first look may have begun before the caller's change; the second began after it
    await("two looks of the thread with nothing due", () -> mirror.idleLooks() >= from + 2);
  }

  @AfterEach
  void close() {
    if (mirror != null) {
      mirror.close();
    }
  }

  private static void await(String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("gave up waiting for " + what);
      }
      Thread.sleep(5);
    }
  }

  private static List<MirrorLane.Ack> acks(MirrorLane<String> lane) {
    List<MirrorLane.Ack> out = new ArrayList<>();
    lane.drainAcks(out::add);
    return out;
  }

  @Test
  void shouldWriteKeysOldestFirstInBatchesWithAtMostTheLimitInFlight() throws Exception {
    MirrorLane<String> lane = lane(2, 3, 1 << 20);
    // changed a minute from now: none is due until the clock moves past them all
    long at = System.currentTimeMillis() + 60_000;
    for (int i = 0; i < 10; i++) {
      assertThat(lane.offer("k" + i, "v" + i, i + 1, 100, at + i)).isTrue();
    }
    shift.set(120_000);
    await("two calls", () -> calls.size() == 2);
    // a key due and no permit: the thread was refused a third call by the limit
    await("the limit refusing a call", () -> mirror.permitsRefused() >= 1);
    assertThat(calls).hasSize(2); // the limit: two in flight
    assertThat(calls.get(0).keys()).containsExactly("k0", "k1", "k2");
    assertThat(calls.get(1).keys()).containsExactly("k3", "k4", "k5");
    assertThat(mirror.callsInFlight()).isEqualTo(2);

    calls.get(0).complete(MirrorResult.WRITTEN);
    await("a third call", () -> calls.size() == 3);
    assertThat(calls.get(2).keys()).containsExactly("k6", "k7", "k8");
    assertThat(acks(lane))
        .extracting(MirrorLane.Ack::key, MirrorLane.Ack::version)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("k0", 1L),
            org.assertj.core.groups.Tuple.tuple("k1", 2L),
            org.assertj.core.groups.Tuple.tuple("k2", 3L));
  }

  @Test
  void shouldHoldKeysBackWhileThePipelineAsksToCoalesceAndWriteThemOnceItStops() throws Exception {
    MirrorLane<String> lane = lane(4, 8, 1 << 20);
    AtomicLong coalesce = new AtomicLong(60_000);
    mirror.coalesceFor(coalesce::get);
    long at = System.currentTimeMillis();
    lane.offer("a", "a1", 1, 100, at);
    lane.offer("a", "a2", 2, 100, at);
    lane.offer("b", "b1", 3, 100, at);
    awaitTwoIdleLooks();
    assertThat(calls).as("held back while coalescing").isEmpty();

    coalesce.set(0);
    await("the call", () -> calls.size() == 1);
    assertThat(calls.get(0).keys()).containsExactly("a", "b");
    assertThat(calls.get(0).values()).containsExactly("a2", "b1");
  }

  @Test
  void shouldWriteAKeyChangedInFlightOnceTheCallEndsWithItsLatestValueOnly() throws Exception {
    MirrorLane<String> lane = lane(4, 8, 1 << 20);
    lane.offer("a", "a1", 1, 100, 0);
    await("the first call", () -> calls.size() == 1);
    lane.offer("a", "a2", 2, 100, 1);
    lane.offer("a", "a3", 3, 100, 2);
    awaitTwoIdleLooks();
    assertThat(calls).hasSize(1); // never two writes of one key at once

    calls.get(0).complete(MirrorResult.WRITTEN);
    await("the second call", () -> calls.size() == 2);
    assertThat(calls.get(1).values()).containsExactly("a3");
    calls.get(1).complete(MirrorResult.UNCHANGED);
    await("both acknowledged", () -> lane.size() == 0);
    assertThat(acks(lane)).extracting(MirrorLane.Ack::version).containsExactly(1L, 3L);
  }

  @Test
  void shouldRetryAFailedKeyWithoutAcknowledgingIt() throws Exception {
    MirrorLane<String> lane = lane(4, 8, 1 << 20);
    lane.offer("a", "a1", 1, 100, 0);
    await("the first call", () -> calls.size() == 1);
    calls.get(0).complete(MirrorResult.FAILED);
    await("a retry after the back-off", () -> calls.size() == 2);
    assertThat(acks(lane)).isEmpty();
    assertThat(calls.get(1).values()).containsExactly("a1");
    calls.get(1).complete(MirrorResult.WRITTEN);
    await("the acknowledgement", () -> lane.size() == 0);
    assertThat(acks(lane)).extracting(MirrorLane.Ack::settled).containsExactly(true);
  }

  @Test
  void shouldWriteTheOtherKeysAtOnceWhileAKeyEtcdRefusedBacksOffAlone() throws Exception {
    AtomicLong now = new AtomicLong(1_000_000); // stands still unless the test moves it
    MirrorLane<String> lane = lane(4, 8, 1 << 20, now::get);
    lane.offer("bad", "x1", 1, 100, 0);
    await("the first call", () -> calls.size() == 1);
    calls.get(0).out().get(0).complete(MirrorOutcome.failed(permissionDenied(), 0));
    // the call's end may run on the mirror's thread, which may not have attached to it yet
    await("the refusal counted", () -> metrics.keyFailures(RecordKind.SHARD) == 1);
    assertThat(metrics.pauses()).as("demandfold_mirror_pauses_total").isZero();
    assertThat(metrics.keysBackingOff()).isEqualTo(1);

    // changed 10 ms from now, both due at once when the clock gets there
    lane.offer("a", "a1", 2, 100, now.get() + 10);
    lane.offer("b", "b1", 3, 100, now.get() + 10);
    now.addAndGet(10);
    // the clock stands still from here: a pause of every key would never end
    await("the others' call", () -> calls.size() == 2);
    assertThat(calls.get(1).keys()).containsExactly("a", "b");
    calls.get(1).complete(MirrorResult.WRITTEN);
    awaitTwoIdleLooks();
    assertThat(calls).as("the refused key waits out its backoff").hasSize(2);

    now.addAndGet(40); // 50 ms after the refusal: its backoff, jitter at its lowest
    await("the refused key's retry", () -> calls.size() == 3);
    assertThat(calls.get(2).keys()).containsExactly("bad");
    calls.get(2).complete(MirrorResult.WRITTEN);
    await("every key acknowledged", () -> lane.size() == 0);
    assertThat(metrics.keysBackingOff()).isZero();
    assertThat(metrics.pauses()).isZero();
  }

  @Test
  void shouldPauseEveryKeyAfterAnErrorOfEtcdAndWarnAtOnce() throws Exception {
    AtomicLong now = new AtomicLong(1_000_000);
    MirrorLane<String> lane = lane(4, 8, 1 << 20, now::get);
    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(LiveMirror.class);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logged =
        new ch.qos.logback.core.read.ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    try {
      lane.offer("a", "a1", 1, 100, 0);
      await("the first call", () -> calls.size() == 1);
      calls
          .get(0)
          .out()
          .get(0)
          .complete(
              MirrorOutcome.failed(
                  io.grpc.Status.UNAVAILABLE
                      .withDescription("etcdserver: no leader")
                      .asRuntimeException(),
                  0));
      // the call's end may run on the mirror's thread: counted, then logged
      await(
          "the warning",
          () ->
              messages(logged).stream()
                  .anyMatch(
                      m ->
                          m.startsWith(
                                  "writing test into etcd failed 1 time(s) since the last report")
                              && m.contains("etcdserver: no leader")));
      assertThat(metrics.pauses()).as("demandfold_mirror_pauses_total").isEqualTo(1);
      assertThat(metrics.keysBackingOff()).isZero();

      lane.offer("b", "b1", 2, 100, 1);
      now.addAndGet(5_000); // past the pause
      await("the retry", () -> calls.size() == 2);
      assertThat(calls.get(1).keys()).containsExactly("a", "b");
    } finally {
      logger.detachAppender(logged);
    }
  }

  private static List<String> messages(
      ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logged) {
    synchronized (logged) { // the appender appends under its own lock
      return logged.list.stream()
          .map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
          .toList();
    }
  }

  private static Throwable permissionDenied() {
    return io.grpc.Status.PERMISSION_DENIED
        .withDescription("etcdserver: permission denied")
        .asRuntimeException();
  }

  @Test
  void shouldRefuseOffersPastTheBudgetUntilWritesFreeIt() throws Exception {
    MirrorLane<String> lane = lane(1, 1, 250);
    assertThat(lane.offer("a", "a", 1, 200, 0)).isTrue();
    assertThat(lane.offer("b", "b", 2, 100, 0)).isFalse();
    assertThat(mirror.heldBytes()).isEqualTo(200);
    await("the call", () -> calls.size() == 1);
    calls.get(0).complete(MirrorResult.WRITTEN);
    await("the bytes freed", () -> mirror.heldBytes() == 0);
    assertThat(lane.offer("b", "b", 2, 100, 0)).isTrue();
  }

  @Test
  void shouldDropWhatWaitsAndReleaseItsBytesWhenALaneCloses() throws Exception {
    MirrorLane<String> lane = lane(1, 1, 1 << 20);
    lane.offer("a", "a", 1, 100, 0);
    lane.offer("b", "b", 2, 100, 0);
    await("the first call", () -> calls.size() == 1);
    mirror.remove(lane);
    assertThat(mirror.heldBytes()).isZero();
    assertThat(lane.offer("c", "c", 3, 100, 0)).isFalse();
    calls.get(0).complete(MirrorResult.WRITTEN);
    awaitTwoIdleLooks();
    assertThat(calls).hasSize(1);
    assertThat(acks(lane)).isEmpty();
  }

  @Test
  void shouldTakeTheLaneWhoseOldestKeyIsOldest() throws Exception {
    MirrorLane<String> first = lane(1, 1, 1 << 20);
    MirrorLane<String> second =
        mirror.lane(
            "second",
            RecordKind.TABLE,
            (keys, values) -> {
              List<CompletableFuture<MirrorOutcome>> out = new ArrayList<>();
              keys.forEach(k -> out.add(new CompletableFuture<>()));
              calls.add(new Call(List.copyOf(keys), List.copyOf(values), out));
              return out;
            });
    first.offer("blocker", "x", 1, 10, 0);
    await("the first call", () -> calls.size() == 1);
    first.offer("young", "y", 2, 10, 500);
    second.offer(Keys.hex("t"), "old", 1, 10, 100);
    calls.get(0).complete(MirrorResult.WRITTEN);
    await("the second call", () -> calls.size() == 2);
    assertThat(calls.get(1).values()).containsExactly("old");
  }
}
