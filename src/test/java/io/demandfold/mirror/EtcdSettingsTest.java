package io.demandfold.mirror;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** TLS follows the endpoints' scheme. */
class EtcdSettingsTest {
  private static EtcdSettings settings(String user, String... endpoints) {
    return new EtcdSettings(
        java.util.Arrays.stream(endpoints).map(URI::create).toList(),
        user,
        user == null ? null : "s3cret-pw",
        null,
        null,
        null,
        Duration.ofSeconds(5));
  }

  @Test
  void shouldTalkTlsToHttpsEndpointsWithoutACa() {
    assertThat(settings(null, "https://etcd1:2379", "https://etcd2:2379").tls()).isTrue();
    assertThat(settings(null, "http://etcd1:2379").tls()).isFalse();
  }

  @Test
  void shouldRefuseEndpointsOfMixedSchemes() {
    assertThatThrownBy(() -> settings(null, "https://etcd1:2379", "http://etcd2:2379"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("etcd.endpoints mixes http:// and https://");
    assertThat(EtcdSettings.mixedSchemes(List.of(" HTTPS://a:1", "https://b:2"))).isNull();
    assertThat(EtcdSettings.mixedSchemes(List.of("http://a:1", " https://b:2"))).isNotNull();
  }
}
