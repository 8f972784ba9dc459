package io.demandfold.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChildProcessTest {
  @TempDir Path dir;

  @Test
  void shouldAppendOutputToTheLogFileAndTailIt() {
    Path log = dir.resolve("out.log");
    ChildProcess first = ChildProcess.start("seq", List.of("seq", "1", "50"), dir, log);
    assertThat(first.awaitExit(Duration.ofSeconds(10))).isTrue();
    ChildProcess second =
        ChildProcess.start("echo", List.of("sh", "-c", "echo done >&2"), dir, log);
    assertThat(second.awaitExit(Duration.ofSeconds(10))).isTrue();

    assertThat(second.exitValue()).isZero();
    assertThat(ChildProcess.tail(log, 3)).isEqualTo("49\n50\ndone");
  }

  @Test
  void shouldSayWhenThereIsNoLog() {
    assertThat(ChildProcess.tail(dir.resolve("missing.log"), 30)).contains("no log file");
  }

  @Test
  void shouldKillTheProcessAndItsDescendants() throws Exception {
    Path log = dir.resolve("tree.log");
    ChildProcess parent =
        ChildProcess.start("tree", List.of("sh", "-c", "sleep 300 & sleep 300 & wait"), dir, log);
    List<ProcessHandle> children = awaitChildren(parent, 2);

    parent.kill();

    assertThat(parent.isAlive()).isFalse();
    for (ProcessHandle child : children) {
      child.onExit().get();
      assertThat(child.isAlive()).as("descendant %d", child.pid()).isFalse();
    }
  }

  @Test
  void shouldStopWithSigtermWithinTheGracePeriod() {
    ChildProcess sleeper =
        ChildProcess.start("sleep", List.of("sleep", "300"), dir, dir.resolve("sleep.log"));

    sleeper.stop(Duration.ofSeconds(20));

    assertThat(sleeper.isAlive()).isFalse();
    assertThat(sleeper.exitValue()).as("SIGTERM (143), not SIGKILL (137)").isEqualTo(128 + 15);
  }

  private static List<ProcessHandle> awaitChildren(ChildProcess parent, int count)
      throws InterruptedException {
    ProcessHandle handle = ProcessHandle.of(parent.pid()).orElseThrow();
    for (int i = 0; i < 100; i++) {
      List<ProcessHandle> children = handle.children().toList();
      if (children.size() >= count) {
        return children;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("the shell did not start " + count + " children");
  }
}
