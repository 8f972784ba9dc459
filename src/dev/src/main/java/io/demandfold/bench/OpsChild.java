package io.demandfold.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** An operator command ({@code audit}, {@code rebuild}) run as a child JVM with a capped heap. */
final class OpsChild {
  private static final long PATIENCE_MINUTES = 30;

  private OpsChild() {}

  /**
   * Runs {@code demandfold <command>} with {@code settings}; its wall time in seconds. Fails with
   * the end of its output unless it exits 0 (for {@code audit}: etcd identical to the log).
   */
  static double run(String command, String heap, Path gcLog, Map<String, String> settings, Path log)
      throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(JvmProbe.options(heap, gcLog));
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.demandfold.cli.Main"));
    cmd.add(command);
    settings.forEach((k, v) -> cmd.addAll(List.of("--set", k + "=" + v)));
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("DEMANDFOLD_"));
    long t0 = System.nanoTime();
    Process p = pb.start();
    try {
      if (!p.waitFor(PATIENCE_MINUTES, TimeUnit.MINUTES)) {
        throw new IllegalStateException(
            command + " did not end in " + PATIENCE_MINUTES + " minutes; see " + log);
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      if (p.exitValue() != 0) {
        List<String> lines = Files.readAllLines(log);
        throw new IllegalStateException(
            command
                + " -Xmx"
                + heap
                + " exited "
                + p.exitValue()
                + ":\n"
                + String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size())));
      }
      return seconds;
    } finally {
      p.destroyForcibly();
    }
  }
}
