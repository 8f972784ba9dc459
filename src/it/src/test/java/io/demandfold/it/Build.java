package io.demandfold.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Where the build puts what the integration tests run (paths from the repository root, the tests'
 * working directory): the service's jar, the development jar of {@code ./demandfold}, the Connect
 * plugin, and the modules' source roots.
 */
public final class Build {
  /** The version being built (the failsafe configuration passes it). */
  public static final String VERSION = System.getProperty("demandfold.version", "0.1.0-SNAPSHOT");

  /** {@code demandfold run} as the image runs it: the service module's jar, with its lib/. */
  public static final Path SERVICE_JAR = Path.of("src/service/target/demandfold-service.jar");

  /** {@code ./demandfold}: the service plus the development commands (local, bench). */
  public static final Path DEV_JAR = Path.of("src/dev/target/demandfold-dev.jar");

  /** The Connect plugin as a directory of a worker's {@code plugin.path}. */
  public static final Path CONNECT_PLUGIN_DIR = Path.of("src/connect/target/connect-plugin");

  /** The Connect plugin's archive, deployed with classifier {@code plugin}. */
  public static final Path CONNECT_PLUGIN_ZIP =
      Path.of("src/connect/target/demandfold-connect-" + VERSION + "-plugin.zip");

  private Build() {}

  /** Every module's {@code src/<kind>/java} directory ({@code kind}: main or test). */
  public static List<Path> sourceRoots(String kind) {
    try (Stream<Path> modules = Files.list(Path.of("src"))) {
      return modules
          .map(m -> m.resolve("src").resolve(kind).resolve("java"))
          .filter(Files::isDirectory)
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every file under every module's {@code src/<kind>/java}. */
  public static List<Path> sources(String kind) {
    return sourceRoots(kind).stream()
        .flatMap(
            r -> {
              try (Stream<Path> s = Files.walk(r)) {
                return s.filter(Files::isRegularFile).toList().stream();
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            })
        .toList();
  }
}
