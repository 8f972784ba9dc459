package io.demandfold.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code demandfold run} as operators start it, in a child JVM: every setting given as {@code --set
 * NAME=VALUE}, no {@code DEMANDFOLD_*} variable of this process passed on, its output appended to a
 * log file. The child runs the code of this JVM (its class path: {@code target/demandfold.jar} when
 * started from the jar). Stopped like every {@link ChildProcess}: SIGTERM then SIGKILL, also by the
 * shutdown hook when this JVM exits first.
 */
public final class ServiceProcess implements AutoCloseable {
  private static final Duration STOP_GRACE = Duration.ofSeconds(30);

  private final ChildProcess child;
  private final Path log;

  private ServiceProcess(ChildProcess child, Path log) {
    this.child = child;
    this.log = log;
  }

  /**
   * Starts {@code demandfold run}.
   *
   * @param name how logs and messages call it
   * @param heap the child's {@code -Xmx}, e.g. {@code 512m}
   * @param settings every setting, given as {@code --set}
   * @param log the file its stdout and stderr are appended to
   */
  public static ServiceProcess start(
      String name, String heap, Map<String, String> settings, Path log) {
    return start(name, heap, List.of(), settings, log);
  }

  /**
   * Starts {@code demandfold run} with more JVM options, e.g. a GC log.
   *
   * @param jvmOptions given to {@code java} after {@code -Xmx}
   */
  public static ServiceProcess start(
      String name, String heap, List<String> jvmOptions, Map<String, String> settings, Path log) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx" + heap);
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("io.demandfold.cli.Main");
    command.add("run");
    new TreeMap<>(settings).forEach((k, v) -> command.addAll(List.of("--set", k + "=" + v)));
    Path dir = log.toAbsolutePath().getParent();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ChildProcess child =
        ChildProcess.start(
            name,
            command,
            dir,
            log,
            env -> env.keySet().removeIf(k -> k.startsWith("DEMANDFOLD_")));
    return new ServiceProcess(child, log);
  }

  public long pid() {
    return child.pid();
  }

  public boolean isAlive() {
    return child.isAlive();
  }

  /** SIGKILL now, without waiting: the caller times what follows from this moment. */
  public void sigkill() {
    child.signalKill();
  }

  /** Waits up to {@code timeout} for the process to exit; true when it did. */
  public boolean awaitExit(Duration timeout) {
    return child.awaitExit(timeout);
  }

  /** SIGTERM (a clean close that leaves the consumer group), SIGKILL after {@code grace}. */
  public void stop(Duration grace) {
    if (child.isAlive()) {
      child.stop(grace);
    }
  }

  /** The log file. */
  public Path log() {
    return log;
  }

  /** The last {@code lines} lines of its log. */
  public String logTail(int lines) {
    return ChildProcess.tail(log, lines);
  }

  /** Stops it with SIGTERM, SIGKILL after 30 s, when it still runs. */
  @Override
  public void close() {
    stop(STOP_GRACE);
  }
}
