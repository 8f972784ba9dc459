package io.demandfold.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * NOTICE names every third-party jar the built Connect plugin bundles, by artifact and version, so
 * that a dependency added to or upgraded in the plugin cannot ship without its license being
 * listed. Needs the plugin built (the package phase of the connect module, before the integration
 * tests).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ConnectPluginNoticeIT {
  /** The plugin directory the connect module builds. */
  static final Path PLUGIN = Path.of("src/connect/target/connect-plugin/demandfold-connect");

  /** {@code artifact-version.jar}: the version starts at the first dash before a digit. */
  private static final Pattern JAR = Pattern.compile("(.+?)-(\\d.*)\\.jar");

  @Test
  void shouldListEveryBundledJarWithItsVersion() throws Exception {
    assertThat(PLUGIN).as("the Connect plugin, built by mvn package").isDirectory();
    String notice = Files.readString(Path.of("NOTICE"));
    List<String> jars;
    try (Stream<Path> files = Files.list(PLUGIN)) {
      jars =
          files
              .map(p -> p.getFileName().toString())
              .filter(n -> n.endsWith(".jar") && !n.startsWith("demandfold"))
              .sorted()
              .toList();
    }
    assertThat(jars).hasSizeGreaterThan(40);
    List<String> missing = new ArrayList<>();
    for (String jar : jars) {
      Matcher m = JAR.matcher(jar);
      assertThat(m.matches()).as(jar).isTrue();
      String artifact = m.group(1);
      String version = m.group(2);
      boolean named =
          Pattern.compile("(?<![\\w.-])" + Pattern.quote(artifact) + "(?![\\w-])")
              .matcher(notice)
              .find();
      if (!named || !notice.contains(version)) {
        missing.add(artifact + " " + version);
      }
    }
    assertThat(missing).as("bundled jars NOTICE does not name with their version").isEmpty();
  }
}
