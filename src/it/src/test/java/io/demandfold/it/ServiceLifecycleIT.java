package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.demandfold.local.EtcdServer;
import io.demandfold.local.KafkaBroker;
import io.demandfold.local.ServiceStartException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Starts and stops the services directly: nothing survives a close, failures explain themselves.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ServiceLifecycleIT {
  @Test
  void shouldLeaveNoProcessAndNoTemporaryDataAfterClose() {
    KafkaBroker broker = KafkaBroker.builder().build();
    EtcdServer etcd = EtcdServer.builder().build();
    long brokerPid;
    long etcdPid;
    try {
      etcd.start();
      broker.start();
      brokerPid = broker.pid();
      etcdPid = etcd.pid();
      assertThat(isAlive(brokerPid)).isTrue();
      assertThat(isAlive(etcdPid)).isTrue();
    } finally {
      broker.close();
      etcd.close();
    }

    assertThat(isAlive(brokerPid)).as("broker pid %d", brokerPid).isFalse();
    assertThat(isAlive(etcdPid)).as("etcd pid %d", etcdPid).isFalse();
    assertThat(broker.dataDir()).doesNotExist();
    assertThat(etcd.dataDir()).doesNotExist();
    // a process ended by a signal exits with 128 + its number: SIGTERM 143, SIGKILL 137
    assertThat(broker.exitStatus())
        .as("the broker's exit status: ended by SIGTERM, not SIGKILLed after the grace period")
        .isEqualTo(SIGTERM_STATUS);
    assertThat(etcd.exitStatus())
        .as("etcd's exit status: ended by SIGTERM, not SIGKILLed after the grace period")
        .isEqualTo(SIGTERM_STATUS);
  }

  private static final int SIGTERM_STATUS = 128 + 15;

  @Test
  void shouldServeAGivenDataDirAgainAndKeepIt(@TempDir Path dir) throws Exception {
    Path data = dir.resolve("kafka");
    try (KafkaBroker first = KafkaBroker.builder().dataDir(data).build().start()) {
      assertThat(first.isRunning()).isTrue();
    }
    String formatted = Files.readString(data.resolve("kraft-logs/meta.properties"));

    try (KafkaBroker second = KafkaBroker.builder().dataDir(data).build().start()) {
      assertThat(second.isRunning()).isTrue();
    }

    assertThat(Files.readString(data.resolve("kraft-logs/meta.properties")))
        .as("not re-formatted")
        .isEqualTo(formatted);
    assertThat(data.resolve("broker.log")).exists();
  }

  @Test
  void shouldReportTheLogTailWhenTheBrokerCannotStart() {
    try (KafkaBroker broker =
        KafkaBroker.builder().serverProperty("num.network.threads", "many").build()) {
      assertThatThrownBy(broker::start)
          .isInstanceOf(ServiceStartException.class)
          .hasMessageContaining("broker.log")
          .hasMessageContaining("num.network.threads");
      assertThat(broker.isRunning()).isFalse();
    }
  }

  private static boolean isAlive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }
}
