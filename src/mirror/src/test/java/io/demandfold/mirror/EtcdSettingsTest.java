package io.demandfold.mirror;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** TLS follows the endpoints' scheme; credentials in the clear to another host are warned about. */
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

  @Test
  void shouldWarnAboutCredentialsInTheClearToAHostThatIsNotLoopback() {
    assertThat(settings("demandfold", "http://10.1.2.3:2379").plaintextCredentialsWarning())
        .hasValueSatisfying(
            w ->
                assertThat(w)
                    .contains("etcd user 'demandfold'")
                    .contains("in the clear to http://10.1.2.3:2379")
                    .contains("https://")
                    .doesNotContain("s3cret-pw"));
    assertThat(
            settings("demandfold", "http://127.0.0.1:2379", "http://etcd2.example:2379")
                .plaintextCredentialsWarning())
        .hasValueSatisfying(
            w -> assertThat(w).contains("http://etcd2.example:2379").doesNotContain("127.0.0.1"));
  }

  @Test
  void shouldLogTheWarningOncePerEndpointsAndUser() {
    Logger logger = (Logger) LoggerFactory.getLogger(EtcdSettings.class);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    try {
      EtcdSettings remote = settings("once", "http://etcd-once.example:2379");
      remote.warnOfPlaintextCredentials();
      remote.warnOfPlaintextCredentials();
      settings("once", "http://etcd-once.example:2379").warnOfPlaintextCredentials();
      settings("once", "http://127.0.0.1:2379").warnOfPlaintextCredentials();
      assertThat(appender.list).hasSize(1);
      assertThat(appender.list.get(0).getLevel()).isEqualTo(Level.WARN);
      assertThat(appender.list.get(0).getFormattedMessage())
          .contains("etcd user 'once'")
          .doesNotContain("s3cret-pw");
    } finally {
      logger.detachAppender(appender);
    }
  }

  @Test
  void shouldNotWarnOverTlsOnLoopbackOrWithoutCredentials() {
    for (String loopback :
        List.of("http://127.0.0.1:2379", "http://127.8.9.1:2379", "http://localhost:2379")) {
      assertThat(settings("demandfold", loopback).plaintextCredentialsWarning())
          .as(loopback)
          .isEmpty();
    }
    assertThat(settings("demandfold", "http://[::1]:2379").plaintextCredentialsWarning()).isEmpty();
    assertThat(settings("demandfold", "https://etcd1:2379").plaintextCredentialsWarning())
        .isEmpty();
    assertThat(settings(null, "http://etcd1:2379").plaintextCredentialsWarning()).isEmpty();
  }

  @Test
  void shouldTellLoopbackHostsWithoutAskingDns() {
    assertThat(EtcdSettings.isLoopback("127.0.0.1")).isTrue();
    assertThat(EtcdSettings.isLoopback("[::1]")).isTrue();
    assertThat(EtcdSettings.isLoopback("LOCALHOST")).isTrue();
    assertThat(EtcdSettings.isLoopback("10.0.0.1")).isFalse();
    assertThat(EtcdSettings.isLoopback("127.0.0.1.example")).isFalse();
    assertThat(EtcdSettings.isLoopback("etcd.internal")).isFalse();
    assertThat(EtcdSettings.isLoopback(null)).isFalse();
  }
}
