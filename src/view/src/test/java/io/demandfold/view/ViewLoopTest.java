package io.demandfold.view;

import static io.demandfold.view.FakeEtcd.delete;
import static io.demandfold.view.FakeEtcd.put;
import static io.demandfold.view.ViewStateTest.table;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.demandfold.core.Keys;
import io.demandfold.mirror.EtcdLayout;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * The view's thread with its real watch and snapshot code over {@link FakeEtcd}: every key of a
 * transaction, a backlog the watch cannot take or the queue cannot hold turned into a resync, a
 * restored etcd noticed (and a lagging member not taken for one), listeners that throw errors, an
 * error of the view's own, and a close from a listener during a resync.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ViewLoopTest {
  private static final EtcdLayout LAYOUT = new EtcdLayout("/df");
  private static final long PATIENCE_MS = 30_000;

  private final FakeEtcd etcd = new FakeEtcd();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger viewLog = (Logger) LoggerFactory.getLogger("io.demandfold.view");

  @BeforeEach
  void captureLogs() {
    logs.start();
    viewLog.addAppender(logs);
  }

  @AfterEach
  void releaseLogs() {
    viewLog.detachAppender(logs);
  }

  private static String key(String target) {
    return LAYOUT.tableKey(Keys.hex(target));
  }

  private DemandView.Builder builder() {
    return DemandView.builder()
        .client(etcd.client())
        .prefix(LAYOUT.prefix())
        .progressInterval(Duration.ofMillis(50))
        .meterRegistry(registry);
  }

  /** Waits for {@code condition}, failing with {@code what} when it does not come. */
  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + PATIENCE_MS * 1_000_000;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("waited " + PATIENCE_MS + " ms for " + what);
      }
      Thread.sleep(10);
    }
  }

  /** A listener that records targets and resyncs, in order. */
  private static final class Heard implements DemandListener {
    final List<String> targets = Collections.synchronizedList(new ArrayList<>());
    final List<Long> resyncs = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void changed(TableChange c) {
      targets.add(c.target() + (c.deleted() ? "-" : "+"));
    }

    @Override
    public void resynced(long revision) {
      resyncs.add(revision);
    }
  }

  private double resyncs(String reason) {
    return registry.get("demandfold.view.resyncs").tag("reason", reason).counter().count();
  }

  private double restarts() {
    return registry.find("demandfold.view.watch.restarts").counters().stream()
        .mapToDouble(c -> c.count())
        .sum();
  }

  private long logged(Level level, String text) {
    synchronized (logs) {
      return logs.list.stream()
          .filter(e -> e.getLevel() == level && e.getFormattedMessage().contains(text))
          .count();
    }
  }

  @Test
  void shouldHearEveryKeyOfATransactionARangeDeleteAndAMixedOne() throws Exception {
    etcd.txn(put(key("a"), table(1, 1)), put(key("b"), table(1, 1)));
    Heard heard = new Heard();
    try (DemandView view = builder().build()) {
      view.addListener(heard);
      view.start();
      etcd.txn(put(key("a"), table(1, 2)), put(key("b"), table(1, 2)), put(key("c"), table(1, 2)));
      etcd.txn(delete(key("a")), delete(key("b")));
      long last =
          etcd.txn(put(key("a"), table(1, 3)), delete(key("c")), put(key("d"), table(1, 3)));
      await("revision " + last, () -> view.revision() >= last);
      assertThat(heard.targets).containsExactly("a+", "b+", "c+", "a-", "b-", "a+", "c-", "d+");
      assertThat(view.tables()).containsOnlyKeys("a", "d");
    }
  }

  @Test
  void shouldGoOnAfterAListenerThrowsAnErrorAndCountIt() throws Exception {
    etcd.txn(put(key("a"), table(1, 1)));
    Heard after = new Heard();
    try (DemandView view = builder().build()) {
      view.addListener(
          c -> {
            if (c.target().equals("boom")) {
              throw new StackOverflowError("a listener's bug");
            }
          });
      view.addListener(after);
      view.start();
      etcd.txn(put(key("boom"), table(1, 2)));
      etcd.txn(put(key("b"), table(1, 3)));
      await("the change after the listener's error", () -> after.targets.contains("b+"));
      assertThat(after.targets).containsExactly("boom+", "b+");
      assertThat(view.table("b")).isPresent();
      assertThat(view.status().live()).isTrue();
      assertThat(registry.get("demandfold.view.listener.errors").counter().count()).isEqualTo(1);
      assertThat(logged(Level.WARN, "failed on a change of boom")).isEqualTo(1);
    }
  }

  @Test
  void shouldReportItselfFailedWhenItsOwnThreadMeetsAnError() throws Exception {
    AtomicBoolean armed = new AtomicBoolean();
    Clock clock =
        new Clock() {
          @Override
          public long millis() {
            if (armed.getAndSet(false)) {
              throw new OutOfMemoryError("simulated");
            }
            return 1_764_400_000_000L;
          }

          @Override
          public Instant instant() {
            return Instant.ofEpochMilli(millis());
          }

          @Override
          public ZoneId getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(ZoneId zone) {
            return this;
          }
        };
    etcd.txn(put(key("a"), table(1, 1)));
    try (DemandView view = builder().clock(clock).build()) {
      view.start();
      await("the view live", () -> view.status().live());
      armed.set(true);
      etcd.txn(put(key("b"), table(1, 3)));
      await(
          "the view to say it failed",
          () -> !view.status().live() && view.status().problem().startsWith("failed"));
      assertThat(view.status().problem()).contains("OutOfMemoryError: simulated");
      assertThat(registry.get("demandfold.view.failed").gauge().value()).isEqualTo(1);
      assertThat(logged(Level.ERROR, "failed")).isEqualTo(1);
      assertThat(etcd.openWatches()).as("watches left open by the failed view").isZero();
    }
  }

  @Test
  void shouldOpenNoWatchOnceClosedByAListenerDuringAResync() throws Exception {
    etcd.txn(put(key("a"), table(1, 1)));
    AtomicReference<Thread> viewThread = new AtomicReference<>();
    CountDownLatch closed = new CountDownLatch(1);
    DemandView view = builder().build();
    view.addListener(
        new DemandListener() {
          @Override
          public void changed(TableChange change) {}

          @Override
          public void resynced(long revision) {
            viewThread.set(Thread.currentThread());
            view.close();
            closed.countDown();
          }
        });
    view.start();
    // the view misses revisions etcd then compacts: it must load a fresh snapshot
    etcd.refuseWatches(true);
    etcd.fail(new IllegalStateException("UNAVAILABLE: connection reset"));
    long rev = etcd.txn(put(key("b"), table(1, 2)));
    etcd.compact(rev);
    etcd.refuseWatches(false);
    assertThat(closed.await(PATIENCE_MS, TimeUnit.MILLISECONDS)).as("a resync").isTrue();
    viewThread.get().join(PATIENCE_MS);
    assertThat(viewThread.get().isAlive()).as("the view's thread after close()").isFalse();
    assertThat(etcd.openWatches()).as("watches open after the view closed").isZero();
  }

  @Test
  void shouldResyncInsteadOfLoopingWhenAResumedWatchCannotTakeItsBacklog() throws Exception {
    etcd.txn(put(key("a"), table(1, 1)));
    etcd.maxResponseBytes(64 << 10);
    Heard heard = new Heard();
    try (DemandView view = builder().build()) {
      view.addListener(heard);
      view.start();
      etcd.refuseWatches(true);
      etcd.fail(new IllegalStateException("UNAVAILABLE: connection reset"));
      long rev = 0;
      assertThat(BIG.length).isBetween(8 << 10, 64 << 10);
      for (int i = 0; i < 8; i++) { // 8 revisions of BIG: one response over 64 KB
        rev = etcd.txn(put(key("big" + i), BIG), put(key("a"), table(1, 2 + i)));
      }
      long last = rev;
      etcd.refuseWatches(false);
      await("a resync", () -> !heard.resyncs.isEmpty());
      assertThat(heard.resyncs.get(0)).isGreaterThanOrEqualTo(last);
      assertThat(resyncs("backlog")).isEqualTo(1);
      assertThat(view.table("a").orElseThrow().pendingGenerations()).isEqualTo(9);
      long next = etcd.txn(put(key("c"), table(1, 1)));
      await("a change after the resync", () -> view.revision() >= next);
      assertThat(view.table("c")).isPresent();
      assertThat(resyncs("backlog")).isEqualTo(1);
    }
  }

  /** A table record of 100 shards: about 16 KB. */
  private static final byte[] BIG = table(100, 1);

  @Test
  void shouldResyncWhenTheBacklogOverflowsTheQueueBytesWhileTheListenerIsBlocked()
      throws Exception {
    etcd.txn(put(key("a"), table(1, 1)));
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Heard heard = new Heard();
    try (DemandView view = builder().queueBytes(64 << 10).build()) {
      view.addListener(
          c -> {
            if (c.target().equals("first")) {
              entered.countDown();
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          });
      view.addListener(heard);
      view.start();
      assertThat(BIG.length).isBetween(8 << 10, 64 << 10);
      etcd.txn(put(key("first"), table(1, 1)));
      assertThat(entered.await(PATIENCE_MS, TimeUnit.MILLISECONDS)).isTrue();
      long last = 0;
      for (int i = 0; i < 10; i++) { // over 80 KB while the listener holds the view's thread
        last = etcd.txn(put(key("big" + i), BIG));
      }
      Supplier<Double> queued = () -> registry.get("demandfold.view.queue.bytes").gauge().value();
      assertThat(queued.get())
          .as("bytes queued for the blocked thread")
          .isLessThanOrEqualTo(64 << 10);
      release.countDown();
      await("a resync", () -> !heard.resyncs.isEmpty());
      assertThat(heard.resyncs.get(0)).isGreaterThanOrEqualTo(last);
      assertThat(resyncs("backlog")).isEqualTo(1);
      assertThat(restarts()).isZero();
      assertThat(view.tables()).containsKeys("first", "big0", "big9");
    }
  }

  @Test
  void shouldResyncWhenEtcdIsRestoredFromAnOlderSnapshot() throws Exception {
    etcd.txn(put(key("a"), table(1, 1)));
    etcd.txn(put(key("b"), table(1, 1)));
    FakeEtcd snapshot = etcd.copy();
    Heard heard = new Heard();
    try (DemandView view = builder().build()) {
      view.addListener(heard);
      view.start();
      etcd.txn(put(key("a"), table(1, 5)));
      long lost = etcd.txn(put(key("gone"), table(1, 1)));
      await("the writes after the snapshot", () -> view.revision() >= lost);
      etcd.refuseWatches(true);
      etcd.fail(new IllegalStateException("UNAVAILABLE: connection reset"));
      etcd.restore(snapshot);
      etcd.refuseWatches(false);
      await("a resync", () -> !heard.resyncs.isEmpty());
      assertThat(view.tables()).containsOnlyKeys("a", "b");
      assertThat(view.table("a").orElseThrow().pendingGenerations()).isEqualTo(1);
      assertThat(heard.targets).endsWith("a+", "gone-");
      assertThat(resyncs("etcd_rewound")).isEqualTo(1);
      assertThat(logged(Level.WARN, "etcd lost writes")).isEqualTo(1);
      assertThat(view.revision()).isEqualTo(snapshot.revision());
      // it follows the restored etcd from there
      long next = etcd.txn(put(key("c"), table(1, 1)));
      await("a change after the resync", () -> view.table("c").isPresent());
      assertThat(view.revision()).isGreaterThanOrEqualTo(next);
      assertThat(resyncs("etcd_rewound")).isEqualTo(1);
    }
  }

  @Test
  void shouldNotTakeAWatchOfALaggingMemberForARestoredEtcd() throws Exception {
    etcd.txn(put(key("a"), table(1, 1)));
    for (int i = 0; i < 5; i++) {
      etcd.txn(put(key("a"), table(1, 2 + i)));
    }
    try (DemandView view = builder().build()) {
      view.start();
      int gets = etcd.gets();
      etcd.lagWatches(3); // its progress answers now come from below what the view has read
      await("a check of etcd's revision", () -> etcd.gets() > gets + 2);
      etcd.lagWatches(0);
      long next = etcd.txn(put(key("b"), table(1, 1)));
      await("a change after the checks", () -> view.table("b").isPresent());
      assertThat(view.revision()).isGreaterThanOrEqualTo(next);
      assertThat(registry.find("demandfold.view.resyncs").counters())
          .allSatisfy(c -> assertThat(c.count()).isZero());
      assertThat(logged(Level.WARN, "etcd lost writes")).isZero();
      assertThat(view.status().live()).isTrue();
    }
  }
}
