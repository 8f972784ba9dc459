package io.demandfold.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.Events;
import io.demandfold.core.TableRecord;
import io.etcd.jetcd.ByteSequence;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The etcd requests and their bytes are counted by the kind of record they carry ({@code
 * demandfold_etcd_requests_total{op,kind}}, {@code demandfold_etcd_request_bytes_total{kind}}): at
 * a million shards a table record carries a whole table, and what the mirror sends etcd for tables
 * against shards is what the bench reports.
 */
class RequestKindMetricsTest {
  private static final long CLUSTER = 0x1234L;

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ScriptedKv kv = new ScriptedKv();
  private final EtcdMirror mirror =
      EtcdMirror.builder()
          .kv(kv)
          .layout(new EtcdLayout("/p"))
          .maxRetries(3)
          .timeout(Duration.ofMinutes(1))
          .maxRequestBytes(1 << 20)
          .metrics(new MirrorMetrics(registry))
          .build();

  private double counter(String name, String... tags) {
    Counter c = registry.find(name).tags(tags).counter();
    assertThat(c).as("%s%s is registered", name, List.of(tags)).isNotNull();
    return c.count();
  }

  private int answered;

  /** Answers, in order, every request issued and those issued on their answers. */
  private void answerAll() {
    for (; answered < kv.requests().size(); answered++) {
      kv.answer(answered, CLUSTER, 10 + answered);
    }
  }

  @Test
  void shouldCountRequestsAndBytesByTheKindOfRecordTheyCarry() {
    CompletableFuture<MirrorOutcome> shard =
        mirror.mirrorShard("7461/a", Events.fold(Events.writer("a", 5, 1, 5000)));
    answerAll(); // the read of the unknown key, then its write
    CompletableFuture<MirrorOutcome> table =
        mirror.mirrorTable(
            "7461", TableRecord.of(List.of(Events.fold(Events.writer("a", 5, 1, 5000)))));
    answerAll();
    mirror.probe();
    answerAll();

    assertThat(shard).isCompletedWithValue(MirrorOutcome.of(MirrorResult.WRITTEN, 0, false));
    assertThat(table).isCompletedWithValue(MirrorOutcome.of(MirrorResult.WRITTEN, 0, false));
    String requests = "demandfold.etcd.requests";
    assertThat(counter(requests, "op", "get", "kind", "shard")).isEqualTo(1);
    assertThat(counter(requests, "op", "txn", "kind", "shard")).isEqualTo(1);
    assertThat(counter(requests, "op", "get", "kind", "table")).isEqualTo(1);
    assertThat(counter(requests, "op", "txn", "kind", "table")).isEqualTo(1);
    assertThat(counter(requests, "op", "get", "kind", "probe")).isEqualTo(1);
    String bytes = "demandfold.etcd.request.bytes";
    double shardBytes = counter(bytes, "kind", "shard");
    double tableBytes = counter(bytes, "kind", "table");
    double probeBytes = counter(bytes, "kind", "probe");
    // the table record carries its entry as the shard record does, and its own fields
    assertThat(tableBytes).isGreaterThan(0);
    assertThat(shardBytes).isGreaterThan(0);
    assertThat(probeBytes)
        .isEqualTo(
            RequestBudget.REQUEST_FRAMING_BYTES
                + ByteSequence.from("/p/", StandardCharsets.UTF_8).size()
                + RequestBudget.KEY_FRAMING_BYTES);
    MirrorMetrics m = new MirrorMetrics(registry);
    assertThat(m.etcdRequests()).isEqualTo(5);
    assertThat(m.etcdRequestBytes()).isEqualTo((long) (shardBytes + tableBytes + probeBytes));
    assertThat(m.etcdRequests(RecordKind.TABLE)).isEqualTo(2);
    assertThat(m.etcdRequestBytes(RecordKind.SHARD)).isEqualTo((long) shardBytes);
  }
}
