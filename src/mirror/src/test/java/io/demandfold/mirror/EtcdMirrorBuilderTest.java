package io.demandfold.mirror;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.demandfold.core.Events;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.core.codec.TableJson;
import io.etcd.jetcd.KV;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The builder of {@link EtcdMirror} refuses each bad argument with a message naming it. */
class EtcdMirrorBuilderTest {
  /** A KV client that fails any call: building a mirror must not talk to etcd. */
  private static final KV NO_ETCD =
      (KV)
          Proxy.newProxyInstance(
              KV.class.getClassLoader(),
              new Class<?>[] {KV.class},
              (proxy, method, args) -> {
                throw new AssertionError("etcd called: " + method.getName());
              });

  private static EtcdMirror.Builder complete() {
    return EtcdMirror.builder()
        .kv(NO_ETCD)
        .layout(new EtcdLayout("/df"))
        .maxRetries(5)
        .timeout(Duration.ofSeconds(5))
        .maxRequestBytes(1_572_864)
        .metrics(MirrorMetrics.detached())
        .cacheBytes(1 << 20);
  }

  private static void assertRefused(Consumer<EtcdMirror.Builder> call, String message) {
    assertThatThrownBy(() -> call.accept(EtcdMirror.builder()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Test
  void shouldRefuseEachBadArgumentNamingIt() {
    assertRefused(b -> b.kv(null), "kv must not be null");
    assertRefused(b -> b.layout(null), "layout must not be null");
    assertRefused(b -> b.maxRetries(-1), "maxRetries must be >= 0, got -1");
    assertRefused(b -> b.timeout(null), "timeout must not be null");
    assertRefused(b -> b.timeout(Duration.ZERO), "timeout must be >= 1 ms, got PT0S");
    assertRefused(
        b -> b.timeout(Duration.ofNanos(999_999)), "timeout must be >= 1 ms, got PT0.000999999S");
    assertRefused(b -> b.timeout(Duration.ofSeconds(-1)), "timeout must be >= 1 ms, got PT-1S");
    assertRefused(b -> b.maxRequestBytes(1023), "maxRequestBytes must be >= 1024, got 1023");
    assertRefused(b -> b.metrics(null), "metrics must not be null");
    assertRefused(b -> b.cacheBytes(-1), "cacheBytes must be >= 0, got -1");
  }

  @Test
  void shouldNameEveryRequiredArgumentNotGiven() {
    assertThatThrownBy(() -> EtcdMirror.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContainingAll(
            "kv", "layout", "maxRetries", "timeout", "maxRequestBytes", "metrics");
    assertThatThrownBy(
            () ->
                EtcdMirror.builder()
                    .kv(NO_ETCD)
                    .layout(new EtcdLayout("/df"))
                    .maxRetries(0)
                    .maxRequestBytes(1024)
                    .metrics(MirrorMetrics.detached())
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("EtcdMirror.builder() needs timeout before build()");
  }

  @Test
  void shouldTakeTheSmallestValuesAllowed() {
    EtcdMirror m =
        complete()
            .maxRetries(0)
            .timeout(Duration.ofMillis(1))
            .maxRequestBytes(1024)
            .cacheBytes(0)
            .build();

    assertThat(m.tableEntriesThatMayFit()).isEqualTo(TableJson.entriesThatMayFit(1024));
  }

  @Test
  void shouldBuildAMirrorOfTheArgumentsGivenWithoutCallingEtcd() {
    EtcdLayout layout = new EtcdLayout("/elsewhere");
    EtcdMirror m = complete().layout(layout).maxRequestBytes(65_536).build();
    ShardRecord r = Events.fold(Events.writer("s1", 3, 1, 3000));

    assertThat(m.layout()).isSameAs(layout);
    assertThat(m.tableEntriesThatMayFit()).isEqualTo(TableJson.entriesThatMayFit(65_536));
    assertThat(m.preview().layout()).isSameAs(layout);
    assertThat(m.preview().shard("6f72/s1", r, null)).isEqualTo(MirrorResult.WRITTEN);
    assertThat(m.preview().shard("6f72/s1", r, JsonCodec.encodeRecord(r)))
        .isEqualTo(MirrorResult.UNCHANGED);
  }
}
