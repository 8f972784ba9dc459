package io.demandfold.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time of another process, from {@code /proc/PID/stat} on Linux; 0 where it cannot be read. */
final class ProcessCpu {
  private static final long NANOS_PER_TICK = 10_000_000; // USER_HZ is 100 on Linux

  private ProcessCpu() {}

  /** User and system CPU time of process {@code pid} so far, in nanoseconds. */
  static long nanos(long pid) {
    return statNanos(Path.of("/proc", Long.toString(pid), "stat"));
  }

  /** User and system CPU time in a {@code /proc/.../stat} file, in nanoseconds; 0 if unreadable. */
  static long statNanos(Path stat) {
    try {
      String s = Files.readString(stat);
      String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
      return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * NANOS_PER_TICK;
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }
}
