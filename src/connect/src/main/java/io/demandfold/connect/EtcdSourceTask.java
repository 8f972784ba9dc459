package io.demandfold.connect;

import io.demandfold.connect.SourceOffset.Phase;
import io.demandfold.core.DemandEvent;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.mirror.PrefixScan;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@code <prefix>/demand-events/}: a snapshot of every key at one revision, a page per {@code
 * poll()}, then a watch from the next revision; each stored record becomes one event ({@link
 * SourceRecords}). The offset is the revision ({@link SourceOffset}), so a restart resumes where
 * the last committed record was, without a second snapshot. When etcd has compacted the revision to
 * resume from (or the offset belongs to another etcd cluster), the task logs it and starts a fresh
 * snapshot: every current record is delivered again, which the fold absorbs as no-op joins.
 *
 * <p>The watch requires a leader (a member cut off from its peers ends it instead of holding it
 * silently) and asks etcd for its progress every {@code watch.progress.interval.ms}; a watch from
 * which nothing came, no event and no progress answer, for {@value #STALL_INTERVALS} such intervals
 * is cancelled and restarted from the revision after the last one delivered, as is a watch that
 * failed or ended ({@code watch-restarts-total{reason}}). Revisions are delivered in order and
 * whole, so a restart neither skips nor repeats one.
 *
 * <p>Deletions are ignored: a deleted record retracts nothing from the fold.
 */
public final class EtcdSourceTask extends SourceTask {
  private static final Logger log = LoggerFactory.getLogger(EtcdSourceTask.class);

  /** Progress intervals without a word from the watch after which it is deemed stalled. */
  static final int STALL_INTERVALS = 3;

  /** The least wait before a watch that failed is started again. */
  private static final long RESTART_PAUSE_MS = 500;

  private EtcdSourceConfig config;
  private EtcdLayout layout;
  private Client client;
  private volatile boolean stopped;
  private SourceRecords records;
  private WatchBuffer buffer;
  private Watch.Watcher watcher;
  private SourceOffset resumeFrom;
  private boolean positioned;
  private PrefixScan snapshot;
  private String clusterId;
  private long watchFrom;
  private long lastErrorLogMs;
  private long lastProgressRequestNanos;
  private final Map<WatchBuffer.Restart, LongAdder> restarts =
      new java.util.EnumMap<>(WatchBuffer.Restart.class);
  private LongAdder snapshots;
  private LongAdder fallbacks;
  private LongAdder delivered;

  @Override
  public String version() {
    return Version.get();
  }

  @Override
  public void start(Map<String, String> props) {
    config = new EtcdSourceConfig(props);
    layout = config.layout();
    TaskMetrics metrics = new TaskMetrics(context.pluginMetrics());
    records = new SourceRecords(layout, config.topic(), config.avro(), metrics);
    snapshots = metrics.counter("snapshots-total", "snapshots started");
    fallbacks =
        metrics.counter(
            "fresh-snapshots-total", "fresh snapshots after compaction or a new cluster");
    delivered = metrics.counter("records-total", "events handed to Connect");
    for (WatchBuffer.Restart reason : WatchBuffer.Restart.values()) {
      restarts.put(
          reason,
          metrics.counter(
              "watch-restarts-total",
              "watches restarted from the next revision not delivered, by reason",
              "reason",
              reason.label()));
    }
    buffer = new WatchBuffer(4 * config.batchSize());
    Map<String, Object> stored =
        context.offsetStorageReader().offset(SourceOffset.partition(layout));
    if (stored != null) {
      try {
        resumeFrom = SourceOffset.parse(stored);
      } catch (IllegalArgumentException e) {
        log.warn(
            "ignoring the stored offset {} of {}: {}", stored, layout.prefix(), e.getMessage());
      }
    }
    try {
      client = config.etcd().connect();
    } catch (IllegalArgumentException e) {
      throw new ConnectException(e.getMessage(), e);
    }
  }

  @Override
  public List<SourceRecord> poll() throws InterruptedException {
    if (stopped) {
      return null;
    }
    try {
      if (!positioned) {
        position();
      }
      return snapshot != null ? snapshotPage() : watched();
    } catch (ExecutionException | TimeoutException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      if (stopped) {
        return null;
      }
      Thread.sleep(Math.min(config.pollTimeoutMs(), 1000));
      throw new RetriableException("etcd did not answer: " + cause, cause);
    } catch (RuntimeException e) {
      if (stopped) {
        return null; // the client was closed under a running poll
      }
      throw e;
    }
  }

  /** Chooses where to start: the stored offset, unless it is of another cluster or ahead. */
  private void position() throws ExecutionException, TimeoutException, InterruptedException {
    ByteSequence prefix = ByteSequence.from(layout.shardRecordsPrefix(), StandardCharsets.UTF_8);
    GetResponse r =
        client
            .getKVClient()
            .get(prefix, GetOption.builder().isPrefix(true).withCountOnly(true).build())
            .get(config.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
    clusterId = clusterId(r.getHeader().getClusterId());
    long now = r.getHeader().getRevision();
    SourceOffset at = resumeFrom;
    positioned = true;
    if (at == null) {
      log.info("snapshot of {}: no stored offset", prefix());
      freshSnapshot();
    } else if (at.clusterId() != null && !at.clusterId().equals(clusterId)) {
      fallback("the stored offset is of etcd cluster " + at.clusterId() + ", now " + clusterId);
    } else if (at.revision() > now) {
      fallback("the stored revision " + at.revision() + " is ahead of etcd's " + now);
    } else if (at.phase() == Phase.SNAPSHOT) {
      log.info(
          "resuming the snapshot of {} at revision {} after {}", prefix(), at.revision(), at.key());
      snapshot(at.revision(), at.key());
    } else {
      log.info("resuming the watch of {} from revision {}", prefix(), at.revision() + 1);
      watch(at.revision() + 1);
    }
  }

  /** Logs why the stored position is unusable and starts a fresh snapshot. */
  private void fallback(String why) {
    fallbacks.increment();
    log.warn("{}: {}; starting a fresh snapshot at etcd's current revision", prefix(), why);
    freshSnapshot();
  }

  private void freshSnapshot() {
    closeWatcher();
    buffer.reset();
    snapshot(0, null);
  }

  /**
   * Starts a snapshot of the records at {@code revision} (0: the current one) after {@code
   * afterKey} ({@code null}: from the first).
   */
  private void snapshot(long revision, String afterKey) {
    snapshots.increment();
    snapshot =
        new PrefixScan(
            client.getKVClient(),
            layout.shardRecordsPrefix(),
            config.batchSize(),
            config.requestTimeout(),
            revision,
            afterKey);
  }

  private List<SourceRecord> snapshotPage()
      throws ExecutionException, TimeoutException, InterruptedException {
    PrefixScan.Page page;
    try {
      page = snapshot.next();
    } catch (ExecutionException e) {
      if (EtcdFailures.isCompacted(e) || EtcdFailures.isFutureRevision(e)) {
        fallback(
            "etcd can no longer read the snapshot's revision "
                + snapshot.revision()
                + " ("
                + e.getCause().getMessage()
                + ")");
        return null;
      }
      throw e;
    }
    clusterId = clusterId(page.clusterId());
    List<SourceRecord> out = new ArrayList<>();
    List<KeyValue> kvs = page.kvs();
    for (int i = 0; i < kvs.size(); i++) {
      KeyValue kv = kvs.get(i);
      DemandEvent e =
          records.event(kv.getKey().getBytes(), kv.getValue().getBytes(), kv.getModRevision());
      if (e != null) {
        String key = kv.getKey().toString(StandardCharsets.UTF_8);
        out.add(
            records.record(
                e,
                kv.getModRevision(),
                Phase.SNAPSHOT,
                SourceOffset.snapshot(page.revision(), key, clusterId)));
      }
    }
    if (page.last()) {
      if (!out.isEmpty()) {
        int last = out.size() - 1;
        out.set(last, withOffset(out.get(last), SourceOffset.watch(page.revision(), clusterId)));
      }
      log.info(
          "snapshot of {} at revision {} done; watching from {}",
          prefix(),
          page.revision(),
          page.revision() + 1);
      snapshot = null;
      watch(page.revision() + 1);
    }
    delivered.add(out.size());
    return out.isEmpty() ? null : out;
  }

  private static String clusterId(long id) {
    return Long.toHexString(id);
  }

  private static SourceRecord withOffset(SourceRecord r, SourceOffset offset) {
    return new SourceRecord(
        r.sourcePartition(),
        offset.toMap(),
        r.topic(),
        r.kafkaPartition(),
        r.keySchema(),
        r.key(),
        r.valueSchema(),
        r.value(),
        r.timestamp(),
        r.headers());
  }

  private void watch(long from) {
    watchFrom = from;
    Watch.Listener listener = buffer.begin(from);
    closeWatcher();
    ByteSequence prefix = ByteSequence.from(layout.shardRecordsPrefix(), StandardCharsets.UTF_8);
    watcher =
        client
            .getWatchClient()
            .watch(
                prefix,
                WatchOption.builder()
                    .isPrefix(true)
                    .withRevision(from)
                    .withNoDelete(true)
                    .withRequireLeader(true)
                    .withProgressNotify(true)
                    .build(),
                listener);
    lastProgressRequestNanos = System.nanoTime();
  }

  /** Asks etcd for the watch's progress once per interval: an idle watch then still answers. */
  private void requestProgressWhenDue() {
    long now = System.nanoTime();
    if ((now - lastProgressRequestNanos) / 1_000_000 >= config.progressIntervalMs()) {
      lastProgressRequestNanos = now;
      client.getWatchClient().requestProgress();
    }
  }

  private List<SourceRecord> watched() throws InterruptedException {
    requestProgressWhenDue();
    WatchBuffer.Drained d =
        buffer.drain(
            config.batchSize(),
            config.pollTimeoutMs(),
            STALL_INTERVALS * config.progressIntervalMs());
    if (d.error() != null && System.currentTimeMillis() - lastErrorLogMs > 30_000) {
      lastErrorLogMs = System.currentTimeMillis();
      log.warn(
          "the watch of {} was interrupted ({}); it reconnects", prefix(), d.error().getMessage());
    }
    List<SourceRecord> out = new ArrayList<>();
    for (WatchBuffer.Taken t : d.taken()) {
      KeyValue kv = t.event().getKeyValue();
      DemandEvent e =
          records.event(kv.getKey().getBytes(), kv.getValue().getBytes(), kv.getModRevision());
      if (e != null) {
        out.add(
            records.record(
                e, kv.getModRevision(), Phase.WATCH, SourceOffset.watch(t.through(), clusterId)));
      }
    }
    if (d.failure() != null) {
      fallback(
          "the watch from revision " + watchFrom + " failed (" + d.failure().getMessage() + ")");
    } else if (d.restartFrom() > 0) {
      restarts.get(d.restart()).increment();
      if (d.restart() == WatchBuffer.Restart.STALLED) {
        log.warn(
            "the watch of {} stalled: no event and no progress answer for {} ms; restarting it"
                + " from revision {}",
            prefix(),
            STALL_INTERVALS * config.progressIntervalMs(),
            d.restartFrom());
      } else {
        log.debug(
            "restarting the watch of {} from revision {} ({})",
            prefix(),
            d.restartFrom(),
            d.restart().label());
      }
      if (d.restart() == WatchBuffer.Restart.FAILED) {
        Thread.sleep(Math.min(config.pollTimeoutMs(), RESTART_PAUSE_MS));
      }
      watch(d.restartFrom());
    }
    delivered.add(out.size());
    return out.isEmpty() ? null : out;
  }

  private String prefix() {
    return layout.shardRecordsPrefix();
  }

  private void closeWatcher() {
    if (watcher != null) {
      watcher.close();
      watcher = null;
    }
  }

  @Override
  public void stop() {
    stopped = true;
    if (client != null) {
      client.close();
    }
  }
}
