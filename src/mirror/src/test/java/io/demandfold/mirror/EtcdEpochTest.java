package io.demandfold.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When etcd's response headers say it lost writes, and when they do not. */
class EtcdEpochTest {
  private static final long A = 0xcdf818194e3a8c32L;
  private static final long B = 0x1c2d3e4f5a6b7c8dL;

  private static EtcdEpoch.Rewind answer(EtcdEpoch epoch, long cluster, long revision) {
    return epoch.observe(epoch.sent(), cluster, revision);
  }

  @Test
  void shouldNotFireOnTheFirstHeaderWhateverItSays() {
    EtcdEpoch epoch = new EtcdEpoch();
    assertThat(answer(epoch, A, 1)).isNull();
    assertThat(epoch.rewinds()).isZero();
  }

  @Test
  void shouldNotFireWhileOneClusterAnswersWithRisingOrEqualRevisions() {
    EtcdEpoch epoch = new EtcdEpoch();
    for (long rev : new long[] {5, 5, 6, 100, 100, 101}) {
      assertThat(answer(epoch, A, rev)).as("revision %d", rev).isNull();
    }
    assertThat(epoch.rewinds()).isZero();
  }

  @Test
  void shouldFireOnceWhenTheRevisionFallsBelowOneSeenBeforeTheRequest() {
    EtcdEpoch epoch = new EtcdEpoch();
    answer(epoch, A, 100);
    answer(epoch, A, 120);
    EtcdEpoch.Rewind r = answer(epoch, A, 40);
    assertThat(r).isEqualTo(new EtcdEpoch.Rewind(A, A, 120, 40));
    assertThat(r.newCluster()).isFalse();
    assertThat(epoch.rewinds()).isEqualTo(1);
    // the restored etcd goes on from 40: rising again is not another loss
    assertThat(answer(epoch, A, 41)).isNull();
    assertThat(answer(epoch, A, 90)).isNull();
    assertThat(epoch.rewinds()).isEqualTo(1);
  }

  @Test
  void shouldFireWhenAnotherClusterAnswersEvenAtAHigherRevision() {
    EtcdEpoch epoch = new EtcdEpoch();
    answer(epoch, A, 100);
    EtcdEpoch.Rewind r = answer(epoch, B, 5_000);
    assertThat(r).isEqualTo(new EtcdEpoch.Rewind(A, B, 100, 5_000));
    assertThat(r.newCluster()).isTrue();
    assertThat(answer(epoch, B, 5_001)).isNull();
    assertThat(epoch.rewinds()).isEqualTo(1);
  }

  @Test
  void shouldNotFireWhenConcurrentRequestsAreAnsweredOutOfOrder() {
    EtcdEpoch epoch = new EtcdEpoch();
    answer(epoch, A, 100);
    EtcdEpoch.Sent first = epoch.sent();
    EtcdEpoch.Sent second = epoch.sent();
    assertThat(epoch.observe(second, A, 105)).isNull();
    // sent before the answer at 105 was seen: an answer at 103 is no loss
    assertThat(epoch.observe(first, A, 103)).isNull();
    assertThat(epoch.rewinds()).isZero();
  }

  @Test
  void shouldNoticeOneLossOnceHoweverManyRequestsWereInFlight() {
    EtcdEpoch epoch = new EtcdEpoch();
    answer(epoch, A, 500);
    EtcdEpoch.Sent[] inFlight = {epoch.sent(), epoch.sent(), epoch.sent()};
    assertThat(epoch.observe(inFlight[0], A, 3)).isNotNull();
    assertThat(epoch.observe(inFlight[1], A, 2)).isNull();
    assertThat(epoch.observe(inFlight[2], B, 4)).as("sent before the loss was noticed").isNull();
    assertThat(epoch.rewinds()).isEqualTo(1);
    // a request sent after the loss is held to what the restored etcd said
    assertThat(answer(epoch, A, 3)).isNull();
    assertThat(answer(epoch, A, 1)).isNotNull();
    assertThat(epoch.rewinds()).isEqualTo(2);
  }
}
