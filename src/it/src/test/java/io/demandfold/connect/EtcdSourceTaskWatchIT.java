package io.demandfold.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.Events;
import io.demandfold.core.Keys;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.local.EtcdServer;
import io.demandfold.mirror.EtcdLayout;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.storage.OffsetStorageReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The source task's watch against a real etcd: it stays quiet while progress answers come, is
 * deemed stalled and restarted when nothing comes (etcd stopped with SIGSTOP: its connections stay
 * open and silent, as a member cut off from its peers holds a watch), is restarted after etcd
 * itself restarts, and in all of it delivers every put once, in order: no revision skipped, none
 * repeated.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class EtcdSourceTaskWatchIT {
  private static final String PREFIX = "/watch";
  private static final EtcdLayout LAYOUT = new EtcdLayout(PREFIX);
  private static final long PROGRESS_MS = 200;

  private final EtcdSourceTask task = new EtcdSourceTask();
  private final EtcdSinkTaskTest.RecordedMetrics metrics = new EtcdSinkTaskTest.RecordedMetrics();
  private final List<String> delivered = new ArrayList<>();
  private final List<String> written = new ArrayList<>();
  private EtcdServer etcd;
  private Client writer;
  private int puts;

  @AfterEach
  void stop() throws Exception {
    task.stop();
    if (writer != null) {
      writer.close();
    }
    if (etcd != null) {
      signal("-CONT");
      etcd.close();
    }
  }

  @Test
  void shouldRestartAStalledOrFailedWatchFromTheNextRevisionWithoutGapOrRepeat() throws Exception {
    etcd = EtcdServer.builder().build().start();
    writer = Client.builder().endpoints(etcd.endpoint()).build();
    task.initialize(new Context(metrics));
    task.start(
        Map.of(
            "etcd.endpoints",
            etcd.endpoint(),
            "etcd.prefix",
            PREFIX,
            "poll.timeout.ms",
            "100",
            "watch.progress.interval.ms",
            String.valueOf(PROGRESS_MS),
            "key.converter",
            EtcdConnectorConfig.BYTE_ARRAY_CONVERTER,
            "value.converter",
            EtcdConnectorConfig.BYTE_ARRAY_CONVERTER));
    pollFor(1000); // the snapshot of an empty prefix, then the watch

    putSome(4);
    putTwoInOneRevision();
    awaitDelivered();
    pollFor(15 * PROGRESS_MS);
    assertThat(restarts("stalled")).as("an idle watch that answers progress requests").isZero();

    signal("-STOP");
    pollFor(6 * PROGRESS_MS);
    signal("-CONT");
    assertThat(restarts("stalled")).as("a watch that says nothing").isPositive();
    putSome(4);
    putTwoInOneRevision();
    awaitDelivered();

    etcd.restart();
    putSome(4);
    awaitDelivered();
    assertThat(restarts("failed") + restarts("ended")).as("after etcd restarted").isPositive();

    assertThat(delivered).containsExactlyElementsOf(written);
    System.out.printf(
        "EtcdSourceTaskWatchIT figures: %d puts delivered once each; restarts: stalled %d, failed"
            + " %d, ended %d%n",
        written.size(), restarts("stalled"), restarts("failed"), restarts("ended"));
  }

  private long restarts(String reason) {
    return metrics.value("watch-restarts-total", "reason", reason);
  }

  private void putSome(int n) throws Exception {
    for (int i = 0; i < n; i++) {
      String shard = "s" + puts++;
      String key = LAYOUT.shardKey(Keys.shardKey("orders", shard));
      long rev =
          writer
              .getKVClient()
              .put(bytes(key), value(shard))
              .get(10, TimeUnit.SECONDS)
              .getHeader()
              .getRevision();
      written.add(key + "@" + rev);
    }
  }

  /** Two keys in one transaction: one revision, two events. */
  private void putTwoInOneRevision() throws Exception {
    String sa = "s" + puts++;
    String sb = "s" + puts++;
    String a = LAYOUT.shardKey(Keys.shardKey("orders", sa));
    String b = LAYOUT.shardKey(Keys.shardKey("orders", sb));
    TxnResponse r =
        writer
            .getKVClient()
            .txn()
            .Then(
                Op.put(bytes(a), value(sa), PutOption.DEFAULT),
                Op.put(bytes(b), value(sb), PutOption.DEFAULT))
            .commit()
            .get(10, TimeUnit.SECONDS);
    long rev = r.getHeader().getRevision();
    written.add(a + "@" + rev);
    written.add(b + "@" + rev);
  }

  private static ByteSequence value(String shard) {
    return ByteSequence.from(JsonCodec.encodeRecord(Events.writer(shard, 7, 2, 7000)));
  }

  /** Polls as Connect does (a retriable failure is polled again) until every put came. */
  private void awaitDelivered() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (delivered.size() < written.size() && System.nanoTime() - deadline < 0) {
      pollOnce();
    }
    assertThat(delivered).as("delivered so far").containsExactlyElementsOf(written);
  }

  private void pollFor(long ms) throws Exception {
    long deadline = System.nanoTime() + ms * 1_000_000;
    while (System.nanoTime() - deadline < 0) {
      pollOnce();
    }
  }

  private void pollOnce() throws InterruptedException {
    List<SourceRecord> records;
    try {
      records = task.poll();
    } catch (RetriableException e) {
      return;
    }
    if (records != null) {
      for (SourceRecord r : records) {
        String key = LAYOUT.shardKey(new String((byte[]) r.key(), StandardCharsets.UTF_8));
        long rev = (Long) r.headers().lastWithName(SourceRecords.REVISION_HEADER).value();
        delivered.add(key + "@" + rev);
      }
    }
  }

  private void signal(String sig) throws Exception {
    Process p = new ProcessBuilder("kill", sig, String.valueOf(etcd.pid())).inheritIO().start();
    assertThat(p.waitFor()).as("kill %s", sig).isZero();
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  /** A source task context without stored offsets. */
  private static final class Context implements SourceTaskContext {
    private final PluginMetrics metrics;

    Context(PluginMetrics metrics) {
      this.metrics = metrics;
    }

    @Override
    public Map<String, String> configs() {
      return Map.of();
    }

    @Override
    public OffsetStorageReader offsetStorageReader() {
      return new OffsetStorageReader() {
        @Override
        public <T> Map<String, Object> offset(Map<String, T> partition) {
          return null;
        }

        @Override
        public <T> Map<Map<String, T>, Map<String, Object>> offsets(
            Collection<Map<String, T>> partitions) {
          return Map.of();
        }
      };
    }

    @Override
    public PluginMetrics pluginMetrics() {
      return metrics;
    }
  }
}
