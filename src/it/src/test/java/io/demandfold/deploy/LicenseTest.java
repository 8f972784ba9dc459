package io.demandfold.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * LICENSE is the Apache License 2.0 exactly as the Apache Software Foundation publishes it (the
 * text Kafka's jars ship), and NOTICE says what demandfold is and that the Connect plugin bundles
 * other licenses' code ({@code ConnectPluginNoticeIT} checks the list against the built plugin).
 */
class LicenseTest {
  /** SHA-256 of https://www.apache.org/licenses/LICENSE-2.0.txt. */
  private static final String APACHE_2_0 =
      "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30";

  @Test
  void shouldCarryTheApacheLicenseTextUnchanged() throws Exception {
    byte[] license = Files.readAllBytes(Path.of("LICENSE"));
    String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(license));
    assertThat(sha)
        .as("LICENSE is the Apache License 2.0 text, byte for byte")
        .isEqualTo(APACHE_2_0);
  }

  @Test
  void shouldNameTheProjectAndTheBundledLicensesInTheNotice() throws Exception {
    String notice = Files.readString(Path.of("NOTICE"));
    assertThat(notice.lines().findFirst()).contains("demandfold");
    assertThat(notice)
        .contains("Apache License, Version 2.0")
        .contains("Eclipse Public License 2.0")
        .contains("BSD 3-Clause")
        .contains("MIT License")
        .contains("CDDL");
  }
}
