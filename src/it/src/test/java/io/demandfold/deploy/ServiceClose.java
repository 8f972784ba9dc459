package io.demandfold.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * How long {@code demandfold run} may take to close after SIGTERM, read from the code that closes
 * it, so that a deploy file's grace period (compose's {@code stop_grace_period}, Kubernetes' {@code
 * terminationGracePeriodSeconds}) follows the code when a timeout there changes: {@code
 * DemandfoldService.close()} waits up to {@code CloseOptions.timeout(...)} for the streams, then
 * {@code LiveMirror.close()} up to its {@code thread.join(...)} for the mirror's thread.
 */
public final class ServiceClose {
  private static final Pattern STREAMS =
      Pattern.compile("CloseOptions\\.timeout\\(Duration\\.ofSeconds\\((\\d+)\\)\\)");
  private static final Pattern MIRROR = Pattern.compile("thread\\.join\\(([\\d_]+)\\)");

  private ServiceClose() {}

  /** The longest the close of an instance waits, in total. */
  public static Duration budget() {
    Duration streams = Duration.ofSeconds(Long.parseLong(find("DemandfoldService.java", STREAMS)));
    Duration mirror =
        Duration.ofMillis(Long.parseLong(find("LiveMirror.java", MIRROR).replace("_", "")));
    return streams.plus(mirror);
  }

  /** The one match of {@code pattern} in the close() of the main source file named {@code name}. */
  private static String find(String name, Pattern pattern) {
    Path file = source(name);
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    int close = text.indexOf("public void close()");
    if (close < 0) {
      throw new AssertionError(file + " has no close()");
    }
    Matcher m = pattern.matcher(text.substring(close));
    if (!m.find()) {
      throw new AssertionError(file + ": its close() has no " + pattern.pattern());
    }
    return m.group(1);
  }

  /** The main source file named {@code name} under src/ (in whichever module holds it). */
  static Path source(String name) {
    try (Stream<Path> files = Files.walk(Path.of("src"))) {
      List<Path> found =
          files
              .filter(p -> p.getFileName().toString().equals(name))
              .filter(p -> p.toString().contains("main/java"))
              .filter(p -> !p.toString().contains("target"))
              .toList();
      if (found.size() != 1) {
        throw new AssertionError("expected one " + name + " under src/, found " + found);
      }
      return found.get(0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
