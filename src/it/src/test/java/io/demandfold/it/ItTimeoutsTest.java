package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every integration test class bounds its tests with a class-level {@link Timeout}: a wait that
 * never ends (a broker that never answers, a child that hangs) fails that test instead of holding
 * the build until CI's limit.
 */
class ItTimeoutsTest {
  /** The integration tests all live in the it module. */
  private static final Path TESTS = Path.of("src", "it", "src", "test", "java");

  @Test
  void shouldBoundEveryIntegrationTestClassWithAClassLevelTimeout() throws Exception {
    List<Class<?>> its = integrationTests();
    assertThat(its).as("*IT classes under %s", TESTS).isNotEmpty();
    assertThat(its)
        .as("*IT classes without a class-level @Timeout")
        .allSatisfy(
            c -> {
              Timeout t = c.getAnnotation(Timeout.class);
              assertThat(t).as("@Timeout of %s", c.getName()).isNotNull();
              assertThat(Duration.of(t.value(), t.unit().toChronoUnit()))
                  .as("the timeout of %s", c.getName())
                  .isBetween(Duration.ofMinutes(5), Duration.ofMinutes(30));
            });
  }

  private static List<Class<?>> integrationTests() throws IOException {
    try (Stream<Path> files = Files.walk(TESTS)) {
      return files
          .filter(f -> f.getFileName().toString().endsWith("IT.java"))
          .map(ItTimeoutsTest::load)
          .toList();
    }
  }

  private static Class<?> load(Path source) {
    String name =
        TESTS.relativize(source).toString().replace(source.getFileSystem().getSeparator(), ".");
    try {
      return Class.forName(
          name.substring(0, name.length() - ".java".length()),
          false,
          ItTimeoutsTest.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new AssertionError("no class for " + source, e);
    }
  }
}
