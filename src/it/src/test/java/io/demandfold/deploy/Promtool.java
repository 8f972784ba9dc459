package io.demandfold.deploy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Prometheus's {@code promtool} (Debian's {@code prometheus} package), run as a child process. */
final class Promtool {
  static final Path BINARY = Path.of("/usr/bin/promtool");

  private Promtool() {}

  /** What a run printed (stdout and stderr) and its exit status. */
  record Result(int exit, String output) {}

  static Result run(String... args) throws Exception {
    if (!Files.isExecutable(BINARY)) {
      throw new IllegalStateException(
          BINARY + " is missing: run scripts/setup (apt-get install prometheus)");
    }
    List<String> command = new ArrayList<>(List.of(BINARY.toString()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("promtool did not finish: " + command);
    }
    return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
  }
}
