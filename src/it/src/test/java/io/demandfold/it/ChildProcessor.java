package io.demandfold.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code demandfold run} as operators start it: a child JVM of the service jar ({@link
 * Build#SERVICE_JAR}) with every setting given as {@code --set}, its output appended to a log file.
 * Fault tests kill it with SIGKILL; {@link #close()} kills it too, so that a failed test leaves
 * nothing running.
 */
final class ChildProcessor implements AutoCloseable {
  static final Path JAR = Build.SERVICE_JAR;

  private final Process process;
  private final Path log;

  private ChildProcessor(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /**
   * Starts {@code demandfold run} with {@code settings}, extra {@code env} variables and JVM
   * arguments before {@code -jar}.
   */
  static ChildProcessor start(
      Map<String, String> settings, Map<String, String> env, List<String> jvmArgs, Path log)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx512m");
    command.addAll(jvmArgs);
    command.add("-jar");
    command.add(JAR.toString());
    command.add("run");
    new TreeMap<>(settings).forEach((k, v) -> command.addAll(List.of("--set", k + "=" + v)));
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectInput(Redirect.from(Path.of("/dev/null").toFile()))
            .redirectOutput(Redirect.appendTo(log.toFile()));
    pb.environment().keySet().removeIf(k -> k.startsWith("DEMANDFOLD_"));
    pb.environment().putAll(env);
    return new ChildProcessor(pb.start(), log);
  }

  static ChildProcessor start(Map<String, String> settings, Path log) throws IOException {
    return start(settings, Map.of(), List.of(), log);
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILL, and waits until the process is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("demandfold run (pid " + pid() + ") survived SIGKILL");
    }
  }

  /** SIGTERM, and waits for the exit status. */
  int stop(Duration patience) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(
          "demandfold run (pid " + pid() + ") ignored SIGTERM for " + patience + ":\n" + output());
    }
    return process.exitValue();
  }

  /** Waits for the process to exit by itself; its exit status, or fails after {@code patience}. */
  int awaitExit(Duration patience) throws InterruptedException {
    if (!process.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError(
          "demandfold run (pid " + pid() + ") still runs after " + patience + ":\n" + output());
    }
    return process.exitValue();
  }

  /** Everything the process printed so far (stdout and stderr). */
  String output() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Runs {@code wait}; when it fails, the failure also says what this process printed (its log is
   * in the test's temporary directory, which does not outlive the test).
   */
  <T> T explaining(Callable<T> wait) throws Exception {
    try {
      return wait.call();
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\nthe child printed:\n" + output(), e);
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
