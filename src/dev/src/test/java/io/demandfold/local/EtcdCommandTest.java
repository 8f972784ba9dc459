package io.demandfold.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EtcdCommandTest {
  @TempDir Path dir;

  @Test
  void shouldSayHowToInstallEtcdWhenItIsMissing() {
    Path nowhere = dir.resolve("none");

    assertThatThrownBy(() -> EtcdCommand.locate(nowhere.toString(), nowhere.resolve("etcd")))
        .isInstanceOf(ServiceStartException.class)
        .hasMessageContaining("apt-get install -y etcd-server")
        .hasMessageContaining("scripts/setup");
  }

  @Test
  void shouldPreferTheFirstEtcdOnThePath() throws Exception {
    Path first = Files.createDirectories(dir.resolve("first"));
    Path second = Files.createDirectories(dir.resolve("second"));
    for (Path d : new Path[] {first, second}) {
      Files.createFile(
          d.resolve("etcd"),
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
    }
    String path = dir.resolve("empty") + ":" + first + ":" + second;

    assertThat(EtcdCommand.locate(path, dir.resolve("fallback"))).isEqualTo(first.resolve("etcd"));
  }

  @Test
  void shouldPassTheTlsFilesAndServeHttps() {
    EtcdCommand command =
        new EtcdCommand(
            Path.of("/bin/etcd"),
            new EtcdCommand.Tls(Path.of("s.crt"), Path.of("s.key"), Path.of("ca.crt"), true));

    assertThat(command.arguments(dir, "https://127.0.0.1:1", "http://127.0.0.1:2"))
        .containsSequence("--cert-file", "s.crt")
        .containsSequence("--key-file", "s.key")
        .containsSequence("--trusted-ca-file", "ca.crt")
        .contains("--client-cert-auth")
        .containsSequence("--listen-client-urls", "https://127.0.0.1:1");
  }
}
