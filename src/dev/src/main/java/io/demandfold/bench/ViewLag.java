package io.demandfold.bench;

import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;
import io.demandfold.core.TableShard;
import io.demandfold.core.codec.TableJson;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.view.DemandListener;
import io.demandfold.view.DemandView;
import io.demandfold.view.TableChange;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The view's lag beside (d): produce to a {@link DemandView} listener. For each event that changes
 * its table's view in the offline fold ({@link TableExpectations#next}), the time from just before
 * it is produced until the listener hears a change of its target's table record that holds it
 * ({@link TableExpectations#holds}: the record's entry of the event's shard is at or past the one
 * the event left).
 *
 * <p>The view hands the listener the record's table view and mod revision, not its entries, so a
 * checker thread (off the view's thread, which stays the scheduler's) reads the record at that
 * revision back from etcd and tests its entries; the time taken is the one the listener heard the
 * change at.
 */
final class ViewLag implements DemandListener, AutoCloseable {
  /**
   * Why an event was timed: the entry of its shard it left; {@code nanos} is set when it is sent.
   */
  private static final class Timed {
    final TableShard entry;
    final ConcurrentLinkedDeque<Timed> queue;
    long nanos;

    Timed(TableShard entry, ConcurrentLinkedDeque<Timed> queue) {
      this.entry = entry;
      this.queue = queue;
    }
  }

  /** A change the listener heard, at {@code nanos}. */
  private record Heard(String target, long revision, long nanos) {}

  /**
   * Lags in milliseconds.
   *
   * @param timed events that changed their table's view when sent
   * @param measured of them, those heard in a table record holding them
   * @param lost events that changed their table's view and were not heard in a record holding them
   *     within the wait after the last was sent
   * @param unread heard table records that could not be read back and tested (compacted, failed, or
   *     written with their derived fields only)
   */
  record Result(
      long timed, long measured, long lost, long unread, double p50, double p99, double max) {}

  private static final Heard STOP = new Heard("", 0, 0);

  private final Client etcd;
  private final EtcdLayout layout;
  private final TableExpectations expectations;
  private final Timed[] timed;
  private final Map<String, Map<String, ConcurrentLinkedDeque<Timed>>> waiting = new HashMap<>();
  private final BlockingQueue<Heard> heard = new LinkedBlockingQueue<>();
  private final long[] lags;
  private int count;
  private long timedCount;
  private long unreadable;
  private DemandView view;
  private Thread checker;

  /**
   * @param events how many events the run sends
   * @param expectations the table side of the fold of every event sent before
   */
  ViewLag(Client etcd, EtcdLayout layout, int events, TableExpectations expectations) {
    this.etcd = etcd;
    this.layout = layout;
    this.expectations = expectations;
    this.timed = new Timed[events];
    this.lags = new long[events];
  }

  /** Before the run: folds the {@code i}-th event, whose shard's record it leaves {@code after}. */
  void expect(int i, String shardKey, ShardRecord after) {
    Keys.ShardKey k = Keys.parse(shardKey);
    TableShard entry = expectations.next(k.target(), k.shard(), after);
    if (entry != null) {
      ConcurrentLinkedDeque<Timed> q =
          waiting
              .computeIfAbsent(k.target(), t -> new HashMap<>())
              .computeIfAbsent(k.shard(), s -> new ConcurrentLinkedDeque<>());
      timed[i] = new Timed(entry, q);
      timedCount++;
    }
  }

  /**
   * Opens the view (its snapshot loaded) and starts the checker, before the first event is sent.
   */
  void start() {
    checker = new Thread(this::check, "bench-view-lag");
    checker.setDaemon(true);
    checker.start();
    view = DemandView.builder().client(etcd).prefix(layout.prefix()).build();
    view.addListener(this);
    view.start();
  }

  /** In the timed loop: the {@code i}-th event is sent now ({@code nanos}). */
  void sent(int i, long nanos) {
    Timed t = timed[i];
    if (t != null) {
      t.nanos = nanos;
      t.queue.add(t);
      timed[i] = null;
    }
  }

  /** Whether every event sent so far was heard. */
  boolean drained() {
    for (Map<String, ConcurrentLinkedDeque<Timed>> shards : waiting.values()) {
      for (ConcurrentLinkedDeque<Timed> q : shards.values()) {
        if (!q.isEmpty()) {
          return false;
        }
      }
    }
    return true;
  }

  @Override
  public void changed(TableChange change) {
    long now = System.nanoTime();
    if (change.current() != null) {
      heard.add(new Heard(change.target(), change.current().revision(), now));
    }
  }

  /** The checker: reads each heard record at its revision and releases the events it holds. */
  private void check() {
    try {
      for (Heard h = heard.take(); h != STOP; h = heard.take()) {
        Map<String, ConcurrentLinkedDeque<Timed>> shards = waiting.get(h.target());
        if (shards == null || shards.values().stream().allMatch(ConcurrentLinkedDeque::isEmpty)) {
          continue;
        }
        TableRecord record = read(h);
        if (record == null) {
          continue;
        }
        for (Map.Entry<String, ConcurrentLinkedDeque<Timed>> e : shards.entrySet()) {
          TableShard entry = record.shards().get(e.getKey());
          Timed t;
          while ((t = e.getValue().peekFirst()) != null
              && TableExpectations.holds(entry, t.entry)) {
            e.getValue().pollFirst();
            synchronized (lags) {
              lags[count++] = h.nanos() - t.nanos;
            }
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The table record of a heard change, read at its mod revision; {@code null} if unreadable. */
  private TableRecord read(Heard h) throws InterruptedException {
    try {
      List<KeyValue> kvs =
          etcd.getKVClient()
              .get(
                  ByteSequence.from(layout.tableKey(Keys.hex(h.target())), StandardCharsets.UTF_8),
                  GetOption.builder().withRevision(h.revision()).build())
              .get(10, TimeUnit.SECONDS)
              .getKvs();
      if (kvs.isEmpty() || kvs.get(0).getModRevision() != h.revision()) {
        unreadable++;
        return null;
      }
      byte[] value = kvs.get(0).getValue().getBytes();
      if (TableJson.isDerivedOnly(value)) {
        unreadable++; // no entries to test: its events stay unheard
        return null;
      }
      return TableJson.decode(value);
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      unreadable++;
      return null;
    }
  }

  /** Closes the view, stops the checker and takes the lags. */
  Result result() {
    close();
    long[] l;
    synchronized (lags) {
      l = Arrays.copyOf(lags, count);
    }
    return of(timedCount, l, unreadable);
  }

  /** The figures of {@code lags} in nanoseconds, of {@code timed} events timed. */
  static Result of(long timed, long[] lags, long unread) {
    long[] l = lags.clone();
    Arrays.sort(l);
    long lost = timed - l.length;
    if (l.length == 0) {
      return new Result(timed, 0, lost, unread, Double.NaN, Double.NaN, Double.NaN);
    }
    return new Result(
        timed,
        l.length,
        lost,
        unread,
        LatencyRun.quantile(l, 0.5),
        LatencyRun.quantile(l, 0.99),
        l[l.length - 1] / 1e6);
  }

  @Override
  public void close() {
    if (view != null) {
      view.close();
      view = null;
    }
    if (checker != null) {
      heard.add(STOP);
      try {
        checker.join(30_000);
      } catch (InterruptedException e) {
        checker.interrupt();
        Thread.currentThread().interrupt();
      }
      checker = null;
    }
  }
}
