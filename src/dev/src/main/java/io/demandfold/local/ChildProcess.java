package io.demandfold.local;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A child process whose stdout and stderr are appended to a log file. It is stopped with SIGTERM,
 * then SIGKILL after a grace period, together with its descendants; a JVM shutdown hook does the
 * same for every child still alive when this JVM exits normally.
 */
final class ChildProcess {
  private static final Logger LOG = LoggerFactory.getLogger(ChildProcess.class);
  private static final Set<ChildProcess> LIVE = ConcurrentHashMap.newKeySet();
  private static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(10);
  private static final Duration KILL_WAIT = Duration.ofSeconds(10);
  private static final int TAIL_BYTES = 16 * 1024;

  static {
    Runtime.getRuntime()
        .addShutdownHook(new Thread(ChildProcess::stopAllLive, "demandfold-child-reaper"));
  }

  private final String name;
  private final Process process;

  private ChildProcess(String name, Process process) {
    this.name = name;
    this.process = process;
  }

  /** Starts {@code command} in {@code workDir}, appending its output to {@code logFile}. */
  static ChildProcess start(String name, List<String> command, Path workDir, Path logFile) {
    return start(name, command, workDir, logFile, env -> {});
  }

  /**
   * Starts {@code command} in {@code workDir}, appending its output to {@code logFile}, with the
   * environment of this process as {@code environment} changes it.
   */
  static ChildProcess start(
      String name,
      List<String> command,
      Path workDir,
      Path logFile,
      Consumer<Map<String, String>> environment) {
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(workDir.toFile())
            .redirectInput(Redirect.from(new File("/dev/null")))
            .redirectErrorStream(true)
            .redirectOutput(Redirect.appendTo(logFile.toFile()));
    environment.accept(builder.environment());
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new ServiceStartException("cannot start " + name + ": " + e.getMessage(), e);
    }
    ChildProcess child = new ChildProcess(name, process);
    LIVE.add(child);
    process.onExit().thenRun(() -> LIVE.remove(child));
    return child;
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** The exit status; the process must have exited. */
  int exitValue() {
    return process.exitValue();
  }

  /** Waits up to {@code timeout} for the process to exit; true when it did. */
  boolean awaitExit(Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !process.isAlive();
    }
  }

  /** SIGTERM, then SIGKILL when the process has not exited within {@code grace}. */
  void stop(Duration grace) {
    List<ProcessHandle> descendants = process.descendants().toList();
    process.destroy();
    if (!awaitExit(grace)) {
      LOG.warn("{} (pid {}) ignored SIGTERM for {} s, killing it", name, pid(), grace.toSeconds());
      process.destroyForcibly();
      awaitExit(KILL_WAIT);
    }
    descendants.forEach(ProcessHandle::destroyForcibly);
  }

  /** SIGKILL now, to the process and its descendants; returns once the process is gone. */
  void kill() {
    signalKill();
    if (!awaitExit(KILL_WAIT)) {
      throw new IllegalStateException(name + " (pid " + pid() + ") survived SIGKILL");
    }
  }

  /** SIGKILL to the process and its descendants, without waiting for them to be gone. */
  void signalKill() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }

  /** The last {@code lines} lines of {@code file}, or a note saying why there are none. */
  static String tail(Path file, int lines) {
    if (!Files.exists(file)) {
      return "(no log file " + file + ")";
    }
    try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
      long length = in.length();
      long from = Math.max(0, length - TAIL_BYTES);
      byte[] bytes = new byte[(int) (length - from)];
      in.seek(from);
      in.readFully(bytes);
      String[] all = new String(bytes, StandardCharsets.UTF_8).split("\r?\n");
      if (all.length == 1 && all[0].isEmpty()) {
        return "(log file " + file + " is empty)";
      }
      return String.join(
          "\n", Arrays.copyOfRange(all, Math.max(0, all.length - lines), all.length));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  private static void stopAllLive() {
    List<ChildProcess> children = List.copyOf(LIVE);
    for (ChildProcess child : children) {
      child.process.descendants().forEach(ProcessHandle::destroy);
      child.process.destroy();
    }
    long deadline = System.nanoTime() + SHUTDOWN_GRACE.toNanos();
    for (ChildProcess child : children) {
      long left = Math.max(0, deadline - System.nanoTime());
      if (!child.awaitExit(Duration.ofNanos(left))) {
        child.process.descendants().forEach(ProcessHandle::destroyForcibly);
        child.process.destroyForcibly();
      }
    }
  }
}
