package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.app.DemandfoldService;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Events;
import io.demandfold.core.Fold;
import io.demandfold.core.Join;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.MirrorMetrics;
import io.demandfold.mirror.MirrorResult;
import io.demandfold.mirror.RecordKind;
import io.etcd.jetcd.ByteSequence;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The migration set-up: the pipeline mirrors into a prefix, the source connector feeds that prefix
 * back into the pipeline's events topic, and an external writer puts records there too. Every
 * record the pipeline mirrored comes back as a no-op join, so the loop settles.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ConnectLoopIT {
  @RegisterExtension
  static final ConnectWorkerExtension connect = ConnectWorkerExtension.named("loop-worker");

  @Test
  void shouldSettleTheLoopWithThePipelineWithoutWriteAmplification(Services services)
      throws Exception {
    ConnectWorker worker = connect.worker();
    try (Harness h = new Harness(services, "loop")) {
      DemandfoldService pipeline = h.start();
      worker.create(h.name, EtcdSourceConnectorIT.source(services, h.prefix, h.eventsTopic));

      Random rnd = new Random(53);
      List<DemandEvent> produced = RandomStreams.stream(rnd, "k", 2, 10, 600);
      List<DemandEvent> putByWriter = RandomStreams.stream(rnd, "x", 2, 8, 200);
      List<DemandEvent> shared = RandomStreams.stream(rnd, "both", 1, 6, 300);
      List<DemandEvent> joinedByWriter = new ArrayList<>();
      for (DemandEvent e : shared) {
        (rnd.nextBoolean() ? produced : joinedByWriter).add(e);
      }
      List<DemandEvent> all = new ArrayList<>(produced);
      all.addAll(putByWriter);
      all.addAll(joinedByWriter);
      Fold expected = Harness.fold(all);

      // the source's snapshot turns what etcd holds at its revision into one event a key, however
      // often it was written: a first put that comes back as an event shows the snapshot taken,
      // so that every write after it comes back through the watch, one event each
      DemandEvent first = putByWriter.get(0);
      services
          .etcdClient()
          .getKVClient()
          .put(
              EtcdSourceConnectorIT.bytes(h.layout().shardKey(first.key())),
              ByteSequence.from(JsonCodec.encodeRecord(Join.join(null, first.record()))))
          .get(10, TimeUnit.SECONDS);
      Harness.await(
          "the source to deliver the first put",
          () -> services.readAll(h.eventsTopic).size(),
          n -> n >= 1,
          Harness.PATIENCE);

      // the external writer: plain puts of its own shards' records, and read-join-CAS (as the
      // reference publishers do) of shards the pipeline writes too, while events are produced
      MirrorMetrics writerMetrics = MirrorMetrics.detached();
      EtcdMirror joiner = h.externalWriter(writerMetrics);
      CompletableFuture<Integer> writer =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return write(services, h, putByWriter, joinedByWriter, joiner);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      for (int i = 0; i < produced.size(); i += 100) {
        h.produce(produced.subList(i, Math.min(produced.size(), i + 100)), rnd);
        Thread.sleep(100);
      }
      int plainPuts = 1 + writer.get(60, TimeUnit.SECONDS);
      h.awaitEtcd(expected);

      // settled: the loop writes nothing more. The fence: one marker record per partition of the
      // events topic, put into etcd after every write. The source brings each back after all it
      // had to bring before it, on its partition; once the pipeline has written each marker's
      // table record (it folded the marker, so everything before it on that partition) and etcd
      // has acknowledged every change, every write that came back before the markers has been
      // folded, and every write that caused has been made: there must be none.
      // (every write the pipeline made is counted once nothing is dirty: counts come before acks)
      Harness.awaitNothingDirty(pipeline, Harness.PATIENCE);
      MirrorMetrics mirrored = pipeline.metrics().mirror();
      long shardWritesBefore = mirrored.count(RecordKind.SHARD, MirrorResult.WRITTEN);
      long tableWritesBefore = mirrored.count(RecordKind.TABLE, MirrorResult.WRITTEN);
      List<Fence.Marker> markers = Fence.markers("fence", h.partitionsSeen(h.eventsTopic));
      for (Fence.Marker m : markers) {
        ShardRecord marker = Events.writer(m.shard(), 1, 1, 1_764_400_000_000L);
        services
            .etcdClient()
            .getKVClient()
            .put(
                EtcdSourceConnectorIT.bytes(h.layout().shardKey(m.key())),
                ByteSequence.from(JsonCodec.encodeRecord(Join.join(null, marker))))
            .get(10, TimeUnit.SECONDS);
        expected.add(new DemandEvent(m.target(), marker));
        plainPuts++;
      }
      int events = Fence.await(services, h.eventsTopic, markers).size();
      h.awaitEtcd(expected);
      Harness.awaitNothingDirty(pipeline, Harness.PATIENCE);
      assertThat(mirrored.count(RecordKind.SHARD, MirrorResult.WRITTEN))
          .as("pipeline shard writes after the loop settled")
          .isEqualTo(shardWritesBefore);
      assertThat(mirrored.count(RecordKind.TABLE, MirrorResult.WRITTEN))
          .as("pipeline table writes after the loop settled: the markers' tables")
          .isEqualTo(tableWritesBefore + markers.size());
      assertThat(h.etcdState()).isEqualTo(Harness.expectedEtcd(expected, h.layout()));

      // every shard write in etcd came back exactly once, and nothing else did
      long shardWrites =
          plainPuts
              + writerMetrics.count(RecordKind.SHARD, MirrorResult.WRITTEN)
              + mirrored.count(RecordKind.SHARD, MirrorResult.WRITTEN);
      assertThat(events - produced.size()).as("events from the source").isEqualTo(shardWrites);
      assertThat(mirrored.count(RecordKind.SHARD, MirrorResult.WRITTEN))
          .as("pipeline shard writes")
          .isLessThanOrEqualTo(expected.changes());
      worker.delete(h.name);
    }
  }

  /** The external writer; returns its number of plain puts. */
  private static int write(
      Services services,
      Harness h,
      List<DemandEvent> putByWriter,
      List<DemandEvent> joinedByWriter,
      EtcdMirror joiner)
      throws Exception {
    Map<String, ShardRecord> mine = new HashMap<>();
    int puts = 0;
    int j = 0;
    for (int i = 0; i < putByWriter.size(); i++) {
      DemandEvent e = putByWriter.get(i);
      ShardRecord before = mine.get(e.key());
      ShardRecord now = Join.join(before, e.record());
      if (now != before) {
        mine.put(e.key(), now);
        services
            .etcdClient()
            .getKVClient()
            .put(
                EtcdSourceConnectorIT.bytes(h.layout().shardKey(e.key())),
                ByteSequence.from(JsonCodec.encodeRecord(now)))
            .get(10, TimeUnit.SECONDS);
        puts++;
      }
      for (; j < joinedByWriter.size() * (i + 1) / putByWriter.size(); j++) {
        DemandEvent s = joinedByWriter.get(j);
        MirrorResult r = joiner.mirrorShard(s.key(), s.record()).get(30, TimeUnit.SECONDS).result();
        assertThat(r.done()).as("external join of %s", s.key()).isTrue();
      }
      Thread.sleep(10);
    }
    return puts;
  }
}
