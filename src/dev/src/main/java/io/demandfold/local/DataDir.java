package io.demandfold.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The data directory of a service: the given one, or a temporary one the service owns. */
final class DataDir {
  final Path path;
  final boolean owned;

  private DataDir(Path path, boolean owned) {
    this.path = path;
    this.owned = owned;
  }

  /**
   * {@code given} (created if missing), or a new temporary directory named after {@code prefix}.
   */
  static DataDir of(Path given, String prefix) {
    try {
      if (given != null) {
        return new DataDir(Files.createDirectories(given).toAbsolutePath(), false);
      }
      return new DataDir(Files.createTempDirectory(prefix).toAbsolutePath(), true);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the data directory", e);
    }
  }

  /** Deletes the directory and everything below it when this service owns it. */
  void deleteIfOwned() {
    if (!owned || !Files.exists(path)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(path)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + path, e);
    }
  }
}
