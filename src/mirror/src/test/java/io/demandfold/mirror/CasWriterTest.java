package io.demandfold.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The mirror's conversation with etcd and its watch of etcd's answers: an answer to one request
 * that arrives while another is being issued must not bound that other's answer (it may have been
 * served before), or a healthy etcd "loses writes" and the mirror writes everything again.
 */
class CasWriterTest {
  private static final long CLUSTER = 0xcdf818194e3a8c32L;
  private static final ByteSequence PROBE = ByteSequence.from("/p/", StandardCharsets.UTF_8);

  private final ScriptedKv kv = new ScriptedKv();
  private final MirrorMetrics metrics = MirrorMetrics.detached();
  private final CasWriter writer =
      new CasWriter(
          kv,
          new KnownValues(1 << 20),
          metrics,
          new RequestBudget(1 << 20),
          3,
          Duration.ofMinutes(1));

  /**
   * Request 0 answered at revision 5; request 1 in flight; while the next request is issued,
   * request 1's answer arrives at revision 10.
   */
  private void anotherAnswerArrivesWhileTheNextRequestIsIssued() {
    writer.probe(PROBE);
    kv.answer(0, CLUSTER, 5);
    writer.probe(PROBE);
    kv.whileIssuingNext(() -> kv.answer(1, CLUSTER, 10));
  }

  @Test
  void shouldNotTakeAnAnswerArrivingWhileAProbeIsIssuedForALossWhenTheProbeWasServedBefore() {
    anotherAnswerArrivesWhileTheNextRequestIsIssued();
    CompletableFuture<Void> probe = writer.probe(PROBE);
    // served at 9: before request 1 was, which it may be (it left before 1's answer came)
    kv.answer(2, CLUSTER, 9);

    assertThat(probe).isCompleted();
    assertThat(writer.rewinds()).as("losses noticed").isZero();
    assertThat(metrics.rewinds()).as("demandfold_mirror_etcd_rewound_total").isZero();
  }

  @Test
  void shouldNotTakeAnAnswerArrivingWhileAWriteIsIssuedForALossWhenTheWriteWasServedBefore() {
    writer.probe(PROBE);
    kv.answer(0, CLUSTER, 5);
    writer.probe(PROBE);
    KeyCall<String> call =
        new KeyCall<>(
            RecordKind.SHARD,
            "/p/demand-events/k/0",
            current -> Decision.write(new byte[] {'{', '}'}, null, false));
    writer.run(List.of(call));
    assertThat(kv.requests())
        .extracting(ScriptedKv.Request::kind)
        .containsExactly("get", "get", "get");
    kv.whileIssuingNext(() -> kv.answer(1, CLUSTER, 10));
    kv.answer(2, CLUSTER, 6); // the read of the unknown key; the write is issued on this answer
    assertThat(kv.requests()).hasSize(4);
    kv.answer(3, CLUSTER, 7);

    assertThat(call.outcome).isCompletedWithValue(MirrorOutcome.of(MirrorResult.WRITTEN, 0, false));
    assertThat(writer.rewinds()).as("losses noticed").isZero();
  }

  @Test
  void shouldNotTakeAnAnswerArrivingWhileAReadIsIssuedForALossWhenTheReadWasServedBefore() {
    anotherAnswerArrivesWhileTheNextRequestIsIssued();
    KeyCall<String> a =
        new KeyCall<>(
            RecordKind.SHARD, "/p/demand-events/k/0", current -> Decision.unchanged(null));
    KeyCall<String> b =
        new KeyCall<>(
            RecordKind.SHARD, "/p/demand-events/k/1", current -> Decision.unchanged(null));
    writer.run(List.of(a, b)); // both unknown: one transaction of two gets
    kv.answer(2, CLUSTER, 9);

    assertThat(a.outcome).isCompletedWithValue(MirrorOutcome.of(MirrorResult.UNCHANGED, 0, false));
    assertThat(writer.rewinds()).as("losses noticed").isZero();
  }

  @Test
  void shouldStillNoticeAnAnswerBelowOneThatArrivedBeforeTheRequestWasIssued() {
    anotherAnswerArrivesWhileTheNextRequestIsIssued();
    writer.probe(PROBE); // request 2: request 1's answer (10) arrives while it is issued
    kv.answer(2, CLUSTER, 10);
    CompletableFuture<Void> after = writer.probe(PROBE); // issued after an answer at 10
    kv.answer(3, CLUSTER, 4);

    assertThat(after).isCompleted();
    assertThat(writer.rewinds()).as("losses noticed").isEqualTo(1);
    assertThat(metrics.rewinds()).as("demandfold_mirror_etcd_rewound_total").isEqualTo(1);
  }
}
