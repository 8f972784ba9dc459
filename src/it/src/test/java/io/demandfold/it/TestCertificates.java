package io.demandfold.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away PKI made with {@code openssl} for TLS tests: a CA, a server certificate for
 * 127.0.0.1 (subjectAltName IP:127.0.0.1), a client certificate, all signed by the CA, and a second
 * CA that signed nothing of these. Keys are unencrypted PKCS#8 PEM ({@code BEGIN PRIVATE KEY}), the
 * form Netty reads without extra providers.
 */
final class TestCertificates {
  final Path ca;
  final Path serverCert;
  final Path serverKey;
  final Path clientCert;
  final Path clientKey;
  final Path otherCa;

  private TestCertificates(Path dir) {
    ca = dir.resolve("ca.pem");
    serverCert = dir.resolve("server.pem");
    serverKey = dir.resolve("server.key");
    clientCert = dir.resolve("client.pem");
    clientKey = dir.resolve("client.key");
    otherCa = dir.resolve("other-ca.pem");
  }

  static TestCertificates generate(Path dir) throws Exception {
    TestCertificates c = new TestCertificates(dir);
    selfSigned(dir, "ca", "demandfold test CA");
    selfSigned(dir, "other-ca", "some other CA");
    signed(dir, "server", "etcd", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
    signed(dir, "client", "demandfold", "extendedKeyUsage=clientAuth\n");
    if (!Files.readString(c.clientKey).startsWith("-----BEGIN PRIVATE KEY-----")) {
      throw new IllegalStateException("openssl did not write a PKCS#8 key: " + c.clientKey);
    }
    return c;
  }

  private static void selfSigned(Path dir, String name, String cn) throws Exception {
    openssl(
        dir,
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-keyout",
        name + ".key",
        "-out",
        name + ".pem",
        "-subj",
        "/CN=" + cn);
  }

  private static void signed(Path dir, String name, String cn, String extensions) throws Exception {
    openssl(
        dir,
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        name + ".key",
        "-out",
        name + ".csr",
        "-subj",
        "/CN=" + cn);
    Files.writeString(dir.resolve(name + ".ext"), extensions);
    openssl(
        dir,
        "x509",
        "-req",
        "-in",
        name + ".csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-out",
        name + ".pem",
        "-extfile",
        name + ".ext");
  }

  private static void openssl(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new java.util.ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException(
          String.join(" ", command) + " failed:\n" + new String(out, StandardCharsets.UTF_8));
    }
  }
}
