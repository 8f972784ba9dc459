package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.mirror.EtcdSettings;
import io.demandfold.ops.EtcdSnapshot;
import io.etcd.jetcd.Client;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code demandfold local} as a user runs it: a child JVM that starts its own broker and etcd;
 * demand appears in etcd; the console shows only demandfold's own lines while the log goes to a
 * file in the data directory; SIGTERM leaves no process behind.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class LocalIT {
  /** A log line on the console: time, level, logger. */
  private static final Pattern LOG_LINE =
      Pattern.compile("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} (\\w+)\\s+(\\S+) - .*");

  @Test
  void shouldShowLiveDemandInEtcdAndLeaveNoProcessAfterSigterm() throws Exception {
    Path jar = Build.DEV_JAR;
    assertThat(jar).exists();
    ProcessBuilder pb =
        new ProcessBuilder(
                "java",
                "-Xmx512m",
                "-jar",
                jar.toString(),
                "local",
                "--targets",
                "3",
                "--shards",
                "2",
                "--flush-rate",
                "40",
                "--merge-rate",
                "20",
                "--scan-interval",
                "PT3S",
                "--report-interval",
                "PT2S")
            .redirectErrorStream(true);
    // the default data directory is under $XDG_STATE_HOME/demandfold: keep it in target/
    Path stateHome = Files.createDirectories(Path.of("target/it-state-home")).toAbsolutePath();
    pb.environment().put("XDG_STATE_HOME", stateHome.toString());
    Process p = pb.start();
    Map<String, String> printed = new HashMap<>();
    List<String> lines = new ArrayList<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  synchronized (lines) {
                    lines.add(line);
                  }
                  int eq = line.indexOf('=');
                  if (eq > 0 && !line.contains(" ")) {
                    synchronized (printed) {
                      printed.put(line.substring(0, eq), line.substring(eq + 1));
                    }
                  }
                }
              } catch (java.io.IOException e) {
                // process ended
              }
            });
    reader.start();
    List<ProcessHandle> family = new ArrayList<>();
    try {
      Harness.await(
          "local to print its http address",
          () -> copy(lines),
          console -> has(printed, "http"),
          Duration.ofSeconds(120));
      assertThat(printed)
          .containsKeys("kafka.bootstrap.servers", "etcd.endpoints", "etcd.prefix", "http");
      assertThat(printed.get("http")).startsWith("http://127.0.0.1:");
      assertThat(printed.get("kafka.bootstrap.servers")).startsWith("127.0.0.1:");
      assertThat(printed.get("etcd.endpoints")).startsWith("http://127.0.0.1:");

      String tables = printed.get("etcd.prefix") + "/demand/";
      try (Client etcd = EtcdSettings.of(printed.get("etcd.endpoints")).connect()) {
        int seen =
            Harness.await(
                "3 tables under " + tables,
                () -> tableCount(etcd, tables),
                n -> n >= 3,
                Duration.ofSeconds(90));
        assertThat(seen).as("tables").isEqualTo(3);
      }
      List<String> shown =
          Harness.await(
              "the line of table-002",
              () -> copy(lines),
              console -> console.stream().anyMatch(l -> l.contains("table-002")),
              Duration.ofSeconds(30));
      assertThat(shown).anyMatch(l -> l.contains("events published; etcd"));

      // the console: demandfold's own lines only, no Kafka client warnings
      Path data = Path.of(printed.get("data"));
      // under $XDG_STATE_HOME/demandfold, not a directory of the OS temp directory (a checkout that
      // itself lives under /tmp puts target/it-state-home there too: the parent is what tells)
      assertThat(data.getParent()).isEqualTo(stateHome.resolve("demandfold"));
      List<String> console = copy(lines);
      assertThat(console)
          .as("no WARN line of a Kafka class on the console")
          .noneMatch(l -> l.contains("WARN") && (l.contains("o.a.k.") || l.contains("kafka.")));
      List<String> logLines = console.stream().filter(l -> LOG_LINE.matcher(l).matches()).toList();
      assertThat(logLines)
          .as("log lines on the console are demandfold's own, or errors")
          .allSatisfy(
              l -> {
                Matcher m = LOG_LINE.matcher(l);
                assertThat(m.matches()).isTrue();
                assertThat(m.group(2).startsWith("i.d.") || m.group(1).equals("ERROR"))
                    .as(l)
                    .isTrue();
              });
      assertThat(logLines).as("demandfold's own lines stay").isNotEmpty();
      // the log file: in the data directory, printed once, holding what the console showed
      assertThat(console.stream().filter(l -> l.startsWith("log=")).count()).isEqualTo(1);
      Path log = Path.of(printed.get("log"));
      assertThat(log).isEqualTo(data.resolve("demandfold.log")).exists();
      String logText = Files.readString(log);
      for (String l : logLines) {
        assertThat(logText).as("the log file has %s", l).contains(l.split(" - ", 2)[1]);
      }
      assertThat(logText).contains("INFO  [").contains("streams REBALANCING -> RUNNING");

      family.add(p.toHandle());
      p.descendants().forEach(family::add);
      assertThat(family.size())
          .as("the broker JVM and etcd are children")
          .isGreaterThanOrEqualTo(3);
      assertThat(family.stream().map(h -> h.info().command().orElse("")).toList())
          .anyMatch(c -> c.endsWith("etcd"));
    } finally {
      p.destroy();
      assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("stopped on SIGTERM").isTrue();
    }
    Harness.await(
        "local's children to end",
        () -> family.stream().filter(ProcessHandle::isAlive).map(ProcessHandle::info).toList(),
        List::isEmpty,
        Duration.ofSeconds(30));
    assertThat(p.exitValue()).isIn(0, 143);
    Path data = Path.of(printed.get("data"));
    Harness.await(
        data + " to be deleted", () -> leftOf(data), List::isEmpty, Duration.ofSeconds(10));
  }

  private static boolean has(Map<String, String> printed, String key) {
    synchronized (printed) {
      return printed.containsKey(key);
    }
  }

  private static List<String> copy(List<String> lines) {
    synchronized (lines) {
      return List.copyOf(lines);
    }
  }

  /** What is left of {@code dir}: its paths, none once it is gone. */
  private static List<String> leftOf(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      return paths.map(Path::toString).toList();
    } catch (IOException | UncheckedIOException e) {
      return Files.exists(dir) ? List.of(e.toString()) : List.of();
    }
  }

  private static int tableCount(Client etcd, String prefix) {
    try {
      return EtcdSnapshot.read(etcd.getKVClient(), prefix, 5000).values().size();
    } catch (Exception e) {
      return 0;
    }
  }
}
