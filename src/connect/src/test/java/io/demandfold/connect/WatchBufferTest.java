package io.demandfold.connect;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.api.Event;
import io.etcd.jetcd.api.KeyValue;
import io.etcd.jetcd.common.exception.EtcdExceptionFactory;
import io.etcd.jetcd.watch.WatchResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

class WatchBufferTest {
  /** A response of puts, one per revision given. */
  private static WatchResponse puts(long... revisions) {
    io.etcd.jetcd.api.WatchResponse.Builder b = io.etcd.jetcd.api.WatchResponse.newBuilder();
    for (long r : revisions) {
      b.addEvents(
          Event.newBuilder()
              .setType(Event.EventType.PUT)
              .setKv(
                  KeyValue.newBuilder()
                      .setKey(ByteString.copyFromUtf8("/k" + r))
                      .setValue(ByteString.copyFromUtf8("v"))
                      .setModRevision(r)));
    }
    return new WatchResponse(b.build());
  }

  private static List<Long> through(WatchBuffer.Drained d) {
    return d.taken().stream().map(WatchBuffer.Taken::through).toList();
  }

  @Test
  void shouldOnlyCompleteARevisionWithItsLastEvent() throws Exception {
    WatchBuffer b = new WatchBuffer(100);
    Watch.Listener l = b.begin(10);
    l.onNext(puts(10, 11, 11, 11));
    l.onNext(puts(12));
    // a poll that stops inside revision 11 must not claim it complete
    assertThat(through(b.drain(2, 0))).containsExactly(10L, 10L);
    assertThat(through(b.drain(10, 0))).containsExactly(10L, 11L, 12L);
    assertThat(b.drain(10, 0).taken()).isEmpty();
  }

  @Test
  void shouldDropWhatDoesNotFitAndAskForARestartAfterTheLastRevisionTaken() throws Exception {
    WatchBuffer b = new WatchBuffer(3);
    Watch.Listener l = b.begin(1);
    l.onNext(puts(1, 2));
    l.onNext(puts(3, 4)); // does not fit: dropped, never blocking jetcd's thread
    l.onNext(puts(5));
    WatchBuffer.Drained d = b.drain(10, 0);
    assertThat(through(d)).containsExactly(1L, 2L);
    assertThat(d.restartFrom()).isEqualTo(3);

    Watch.Listener again = b.begin(3);
    l.onNext(puts(6)); // the old watch is ignored
    again.onNext(puts(3, 4));
    WatchBuffer.Drained next = b.drain(10, 0);
    assertThat(through(next)).containsExactly(3L, 4L);
    assertThat(next.restartFrom()).isZero();
  }

  @Test
  void shouldReportCompactionAfterTheEventsBeforeIt() throws Exception {
    WatchBuffer b = new WatchBuffer(10);
    Watch.Listener l = b.begin(5);
    l.onNext(puts(5));
    l.onError(EtcdExceptionFactory.newCompactedException(9));
    l.onCompleted();
    WatchBuffer.Drained d = b.drain(10, 0);
    assertThat(through(d)).containsExactly(5L);
    assertThat(d.failure()).isNotNull();
    assertThat(EtcdFailures.isCompacted(d.failure())).isTrue();
  }

  @Test
  void shouldPassAnErrorOnOnceAndRestartAWatchThatFailedOrEnded() throws Exception {
    WatchBuffer b = new WatchBuffer(10);
    Watch.Listener l = b.begin(20);
    l.onNext(puts(20));
    l.onError(new IllegalStateException("UNAVAILABLE: etcdserver: no leader"));
    WatchBuffer.Drained d = b.drain(10, 0);
    assertThat(through(d)).containsExactly(20L);
    assertThat(d.error()).hasMessageContaining("no leader");
    assertThat(d.failure()).isNull();
    assertThat(d.restartFrom()).isEqualTo(21);
    assertThat(d.restart()).isEqualTo(WatchBuffer.Restart.FAILED);

    Watch.Listener again = b.begin(21);
    assertThat(b.drain(10, 0).restartFrom()).isZero();
    again.onCompleted();
    WatchBuffer.Drained ended = b.drain(10, 0);
    assertThat(ended.restartFrom()).isEqualTo(21);
    assertThat(ended.restart()).isEqualTo(WatchBuffer.Restart.ENDED);
  }

  @Test
  void shouldRestartAWatchFromWhichNothingCameWithinTheStallLimit() throws Exception {
    WatchBuffer b = new WatchBuffer(10);
    Watch.Listener l = b.begin(30);
    l.onNext(puts(30, 31));
    assertThat(through(b.drain(10, 0, 60_000))).containsExactly(30L, 31L);
    // a progress answer (no events) keeps the watch alive
    l.onNext(new WatchResponse(io.etcd.jetcd.api.WatchResponse.newBuilder().build()));
    assertThat(b.drain(10, 0, 60_000).restart()).isNull();
    Thread.sleep(30);
    WatchBuffer.Drained d = b.drain(10, 0, 20);
    assertThat(d.restart()).isEqualTo(WatchBuffer.Restart.STALLED);
    assertThat(d.restartFrom()).isEqualTo(32);
  }
}
