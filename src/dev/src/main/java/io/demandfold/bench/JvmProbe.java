package io.demandfold.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a child JVM used: its live heap after a full GC ({@code jcmd}), its peak resident set
 * ({@code VmHWM} of {@code /proc}) and its peak heap as its GC log ({@link #gcLogOption}) shows it:
 * the largest heap occupancy before a collection.
 */
final class JvmProbe {
  private static final Pattern USED = Pattern.compile("used (\\d+)K");

  /** {@code 120M->30M(512M)} in a unified-logging GC line: before, after, capacity. */
  private static final Pattern PAUSE =
      Pattern.compile("(\\d+)([KMG])->(\\d+)([KMG])\\((\\d+)[KMG]\\)");

  private static final Pattern HWM = Pattern.compile("VmHWM:\\s+(\\d+) kB");

  private JvmProbe() {}

  /** The JVM option that writes the GC log {@link #peakHeapMib} reads to {@code file}. */
  static String gcLogOption(Path file) {
    return "-Xlog:gc:file=" + file.toAbsolutePath();
  }

  /** The JVM options of a child whose heap is read: its cap and its GC log. */
  static List<String> options(String heap, Path gcLog) {
    return List.of("-Xmx" + heap, gcLogOption(gcLog));
  }

  /**
   * The largest heap occupancy the GC log records (before a collection, so at its highest), in MiB;
   * 0 when the log holds no collection.
   */
  static double peakHeapMib(Path gcLog) throws IOException {
    if (!Files.exists(gcLog)) {
      return 0;
    }
    return peakHeapMib(Files.readString(gcLog, StandardCharsets.UTF_8));
  }

  /** {@link #peakHeapMib(Path)} of a GC log's text. */
  static double peakHeapMib(String gcLog) {
    double peak = 0;
    Matcher m = PAUSE.matcher(gcLog);
    while (m.find()) {
      peak = Math.max(peak, mib(Long.parseLong(m.group(1)), m.group(2)));
    }
    return peak;
  }

  private static double mib(long n, String unit) {
    return switch (unit) {
      case "K" -> n / 1024.0;
      case "G" -> n * 1024.0;
      default -> n;
    };
  }

  /** The peak resident set of a live process in MiB, from {@code /proc/<pid>/status}. */
  static double peakRssMib(long pid) throws IOException {
    Matcher m = HWM.matcher(Files.readString(Path.of("/proc", Long.toString(pid), "status")));
    if (!m.find()) {
      throw new IllegalStateException("no VmHWM in /proc/" + pid + "/status");
    }
    return Long.parseLong(m.group(1)) / 1024.0;
  }

  /** The live heap of a process in MiB: a full GC, then the heap's occupancy. */
  static double liveHeapMib(long pid) throws Exception {
    jcmd(pid, "GC.run");
    Thread.sleep(500);
    Matcher m = USED.matcher(jcmd(pid, "GC.heap_info"));
    if (!m.find()) {
      throw new IllegalStateException("cannot read the heap of process " + pid);
    }
    return Long.parseLong(m.group(1)) / 1024.0;
  }

  private static String jcmd(long pid, String command) throws Exception {
    Process j =
        new ProcessBuilder("jcmd", Long.toString(pid), command).redirectErrorStream(true).start();
    String out = new String(j.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!j.waitFor(60, TimeUnit.SECONDS) || j.exitValue() != 0) {
      throw new IllegalStateException("jcmd " + pid + " " + command + " failed: " + out);
    }
    return out;
  }
}
