package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.testkit.engine.EngineTestKit;

/** Runs a test class with {@link ServicesExtension} and checks what it leaves behind. */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ServicesExtensionIT {
  @Test
  void shouldShareOneBrokerAndEtcdPerClassAndStopThemAfterwards() {
    assumeTrue(
        System.getProperty(Backend.PROPERTY, "local").equals("local"),
        "looks at the processes, which only the local services have");
    Probe.seen.clear();

    EngineTestKit.engine("junit-jupiter")
        .selectors(selectClass(Probe.class))
        .execute()
        .testEvents()
        .assertStatistics(stats -> stats.started(2).succeeded(1).failed(1));

    assertThat(Probe.seen).hasSize(3).allSatisfy(s -> assertThat(s).isEqualTo(Probe.seen.get(0)));
    Seen seen = Probe.seen.get(0);
    assertThat(isAlive(seen.brokerPid)).as("broker pid %d", seen.brokerPid).isFalse();
    assertThat(isAlive(seen.etcdPid)).as("etcd pid %d", seen.etcdPid).isFalse();
    assertThat(seen.brokerData).doesNotExist();
    assertThat(seen.etcdData).doesNotExist();
  }

  private static boolean isAlive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  record Seen(long brokerPid, long etcdPid, Path brokerData, Path etcdData) {
    static Seen of(Services services) {
      return new Seen(
          services.broker().pid(),
          services.etcd().pid(),
          services.broker().dataDir(),
          services.etcd().dataDir());
    }
  }

  /** Run only from the test above (nested classes are not picked up on their own). */
  @ExtendWith(ServicesExtension.class)
  static class Probe {
    static final List<Seen> seen = new ArrayList<>();

    @BeforeAll
    static void recordInBeforeAll(Services services) {
      seen.add(Seen.of(services));
    }

    @Test
    void recordsInATest(Services services) {
      seen.add(Seen.of(services));
    }

    @Test
    void failsAndStillLetsTheServicesStop(Services services) {
      seen.add(Seen.of(services));
      throw new AssertionError("a failing test must not keep the services running");
    }
  }
}
