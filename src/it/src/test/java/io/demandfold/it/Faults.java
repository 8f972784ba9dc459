package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import io.demandfold.core.Join;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.corpus.BadInputs.BadInput;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.ops.Audit;
import io.demandfold.ops.EtcdSnapshot;
import io.etcd.jetcd.KV;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

/**
 * What fault tests measure: how far the pipeline got (committed offsets of its group), whether etcd
 * equals the offline fold (the audit), how many events lost their contribution, and what the DLQ
 * holds.
 */
final class Faults {
  static final int MAX_REQUEST_BYTES = 1_572_864;

  private Faults() {}

  /**
   * Where a fault test ended: etcd against the offline fold, events whose contribution etcd lacks,
   * and the dead letters.
   */
  record Outcome(
      FleetStream stream,
      Audit.Report report,
      long lost,
      List<ConsumerRecord<byte[], byte[]>> dlq) {

    /** Waits until the group committed every event and etcd equals the offline fold. */
    static Outcome await(Services services, Harness h, FleetStream stream, Duration patience)
        throws Exception {
      awaitAllCommitted(services.admin(), h.name, h.eventsTopic, patience);
      KV kv = services.etcdClient().getKVClient();
      Audit.Report report = awaitIdentical(kv, h.layout(), stream.fold(), patience);
      long lost = Faults.lost(kv, h.layout(), stream.valid);
      // read_committed reads stop at the first open transaction: a killed instance's transaction
      // that no restart fences (a new process id) hides the dead letters after it until the
      // broker aborts it (transaction.timeout.ms)
      String dlq = h.name + ".dlq";
      int bad = stream.bad.size();
      Harness.await(
          "the " + bad + " bad records sent in " + dlq,
          () -> services.readAll(dlq).size(),
          n -> n >= bad,
          patience);
      return new Outcome(stream, report, lost, services.readAll(dlq));
    }

    /** The figures of the table in docs/reliability.md. */
    String figures() {
      return String.format(
          "events=%d valid + %d bad, lost=%d, divergent keys=%d of %d, DLQ=%d %s",
          stream.valid.size(),
          stream.bad.size(),
          lost,
          report.divergences().size(),
          report.compared(),
          dlq.size(),
          byReason(dlq));
    }

    /** Nothing diverges, nothing is lost, the DLQ holds exactly the bad records sent. */
    void assertExact() {
      assertThat(report.divergences()).as("divergent keys").isEmpty();
      assertThat(lost).as("events whose contribution etcd lacks").isZero();
      assertDeadLettersAreExactly(dlq, stream.bad);
    }
  }

  /** Records of {@code topic} the group {@code group} has committed, over all partitions. */
  static long committed(Admin admin, String group, String topic) {
    try {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(10, TimeUnit.SECONDS);
      long sum = 0;
      for (var e : offsets.entrySet()) {
        if (e.getKey().topic().equals(topic) && e.getValue() != null) {
          sum += e.getValue().offset();
        }
      }
      return sum;
    } catch (Exception e) {
      return -1;
    }
  }

  /** The end offsets of {@code topic}, summed over its partitions. */
  static long endOffsets(Admin admin, String topic) throws Exception {
    var desc = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS);
    Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
    desc.get(topic)
        .partitions()
        .forEach(p -> ask.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
    long sum = 0;
    for (var e : admin.listOffsets(ask).all().get(30, TimeUnit.SECONDS).values()) {
      sum += e.offset();
    }
    return sum;
  }

  /** Waits until the group has committed every record of {@code topic}. */
  static void awaitAllCommitted(Admin admin, String group, String topic, Duration patience)
      throws Exception {
    long end = endOffsets(admin, topic);
    long committed =
        Harness.await(
            "group " + group + " to commit the " + end + " records of " + topic,
            () -> committed(admin, group, topic),
            c -> c >= end,
            patience);
    assertThat(committed).as("records of %s committed", topic).isEqualTo(end);
  }

  /** Compares etcd under {@code layout} with the fold, byte for byte (tables included). */
  static Audit.Report audit(KV kv, EtcdLayout layout, Fold expected) throws Exception {
    return Audit.compare(
        Audit.expected(expected, layout, true, MAX_REQUEST_BYTES),
        EtcdSnapshot.read(kv, layout.prefix() + "/", 10_000),
        layout,
        true);
  }

  /** Waits until the audit finds etcd identical to the fold; the last report. */
  static Audit.Report awaitIdentical(KV kv, EtcdLayout layout, Fold expected, Duration patience)
      throws Exception {
    long deadline = System.nanoTime() + patience.toNanos();
    Audit.Report r = audit(kv, layout, expected);
    while (!r.identical() && System.nanoTime() < deadline) {
      Thread.sleep(500);
      r = audit(kv, layout, expected);
    }
    return r;
  }

  /**
   * Polls the audit until etcd equals {@code expected} whole; returns how many milliseconds after
   * the first snapshot whose shard records all equal the fold the table records did too (0 when
   * they converged in the same snapshot). Fails when etcd never equals the fold within {@code
   * patience}.
   */
  static long tablesAfterShardsMs(KV kv, EtcdLayout layout, Fold expected, Duration patience)
      throws Exception {
    long deadline = System.nanoTime() + patience.toNanos();
    long shardsEqualAt = -1;
    while (true) {
      Audit.Report r = audit(kv, layout, expected);
      long now = System.nanoTime();
      boolean shardsEqual =
          !r.truncated()
              && r.divergences().stream()
                  .noneMatch(d -> d.key().startsWith(layout.shardRecordsPrefix()));
      if (shardsEqual && shardsEqualAt < 0) {
        shardsEqualAt = now;
      }
      if (r.identical()) {
        return (now - shardsEqualAt) / 1_000_000;
      }
      if (now > deadline) {
        throw new AssertionError(
            "etcd never equalled the fold within "
                + patience
                + " ("
                + r.divergent()
                + " of "
                + r.compared()
                + " keys divergent, shard records equal: "
                + shardsEqual
                + ")");
      }
      Thread.sleep(100);
    }
  }

  /**
   * Valid events whose contribution etcd lacks: joining one into the record etcd holds for its
   * shard would change that record (the join is idempotent, so an event already folded changes
   * nothing).
   */
  static long lost(KV kv, EtcdLayout layout, List<DemandEvent> valid) throws Exception {
    Map<String, ShardRecord> stored = new HashMap<>();
    EtcdSnapshot snapshot = EtcdSnapshot.read(kv, layout.shardRecordsPrefix(), 10_000);
    snapshot
        .values()
        .forEach(
            (k, v) ->
                stored.put(
                    k.substring(layout.shardRecordsPrefix().length()), JsonCodec.decodeRecord(v)));
    long lost = 0;
    for (DemandEvent e : valid) {
      ShardRecord s = stored.get(e.key());
      if (s == null || !Join.join(s, e.record()).equals(s)) {
        lost++;
      }
    }
    return lost;
  }

  /** The DLQ records by reason header. */
  static Map<String, Long> byReason(List<ConsumerRecord<byte[], byte[]>> dlq) {
    Map<String, Long> out = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r : dlq) {
      out.merge(header(r, "demandfold.dlq.reason"), 1L, Long::sum);
    }
    return out;
  }

  /** The bad inputs by expected reason. */
  static Map<String, Long> reasons(List<BadInput> bad) {
    Map<String, Long> out = new TreeMap<>();
    bad.forEach(b -> out.merge(b.reason(), 1L, Long::sum));
    return out;
  }

  /**
   * Fails unless the DLQ holds exactly the bad inputs: the same key and value bytes, each with its
   * reason, as many times as sent.
   */
  static void assertDeadLettersAreExactly(
      List<ConsumerRecord<byte[], byte[]>> dlq, List<BadInput> bad) {
    List<ConsumerRecord<byte[], byte[]>> unmatched = new ArrayList<>(dlq);
    for (BadInput b : bad) {
      ConsumerRecord<byte[], byte[]> r =
          unmatched.stream()
              .filter(d -> Arrays.equals(d.key(), b.key()) && Arrays.equals(d.value(), b.value()))
              .findFirst()
              .orElseThrow(() -> new AssertionError("not dead-lettered: " + b));
      unmatched.remove(r);
      assertThat(header(r, "demandfold.dlq.reason")).as(b.kind()).isEqualTo(b.reason());
      assertThat(header(r, "demandfold.dlq.message")).as(b.kind()).isNotBlank();
    }
    assertThat(unmatched).as("DLQ records that are no bad input").isEmpty();
  }

  static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }
}
