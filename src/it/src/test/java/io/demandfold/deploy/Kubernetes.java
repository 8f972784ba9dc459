package io.demandfold.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The tools {@code KubernetesManifestsTest} runs as child processes: {@code kubectl kustomize},
 * which renders {@code deploy/kubernetes}, and the validator of {@code deploy/kubernetes/validate}
 * (Node.js with the npm packages its package-lock.json pins, installed with {@code npm ci} into
 * {@code target/k8s-validate}). scripts/setup installs kubectl, Node.js and npm where they lack.
 */
final class Kubernetes {
  static final Path BASE = Path.of("deploy/kubernetes");
  static final Path VALIDATOR = BASE.resolve("validate");
  static final Path INSTALL = Path.of("target/k8s-validate");
  private static final List<String> VALIDATOR_FILES =
      List.of("package.json", "package-lock.json", "validate.mjs");

  private Kubernetes() {}

  /** What a child process printed (stdout and stderr) and its exit status. */
  record Run(int exit, String output) {}

  /** Renders a kustomization directory with kubectl's Kustomize into its objects. */
  static List<JsonNode> render(Path kustomization) throws Exception {
    Run r = run(null, executable("kubectl"), "kustomize", kustomization.toString());
    if (r.exit() != 0) {
      throw new AssertionError("kubectl kustomize " + kustomization + " failed: " + r.output());
    }
    List<JsonNode> out = new ArrayList<>();
    YAMLMapper yaml = new YAMLMapper();
    try (var parser = new YAMLFactory().createParser(r.output())) {
      yaml.readValues(parser, JsonNode.class)
          .forEachRemaining(
              n -> {
                if (n != null && !n.isNull() && !n.isEmpty()) {
                  out.add(n);
                }
              });
    }
    return out;
  }

  /**
   * Validates {@code objects} against their schemas; one JSON line per object ({@code apiVersion,
   * kind, name, valid, errors}).
   */
  static List<JsonNode> validate(List<JsonNode> objects) throws Exception {
    install();
    Path file = INSTALL.resolve("objects.json");
    new ObjectMapper().writeValue(file.toFile(), objects);
    Run r = run(INSTALL, executable("node"), "validate.mjs", file.getFileName().toString());
    List<JsonNode> lines = new ArrayList<>();
    for (String line : r.output().split("\n")) {
      if (line.startsWith("{")) {
        lines.add(new ObjectMapper().readTree(line));
      }
    }
    if (lines.size() != objects.size()) {
      throw new AssertionError("the validator answered " + lines.size() + " lines: " + r.output());
    }
    return lines;
  }

  /**
   * Installs the validator's packages with {@code npm ci} unless {@code target/k8s-validate}
   * already holds them for the same package-lock.json.
   */
  private static void install() throws Exception {
    Files.createDirectories(INSTALL);
    Path lock = INSTALL.resolve("package-lock.json");
    boolean current =
        Files.exists(INSTALL.resolve("node_modules/.package-lock.json"))
            && Files.exists(lock)
            && Arrays.equals(
                Files.readAllBytes(lock),
                Files.readAllBytes(VALIDATOR.resolve("package-lock.json")));
    for (String f : VALIDATOR_FILES) {
      Files.copy(VALIDATOR.resolve(f), INSTALL.resolve(f), StandardCopyOption.REPLACE_EXISTING);
    }
    if (!current) {
      Run r =
          run(
              INSTALL,
              executable("npm"),
              "ci",
              "--no-audit",
              "--no-fund",
              "--ignore-scripts",
              "--engine-strict=false",
              "--loglevel=error");
      if (r.exit() != 0) {
        throw new AssertionError("npm ci in " + INSTALL + " failed: " + r.output());
      }
    }
  }

  /** A program on the PATH, or a clear failure naming what installs it. */
  static String executable(String name) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path p = Path.of(dir, name);
      if (Files.isExecutable(p)) {
        return p.toString();
      }
    }
    throw new AssertionError(name + " is not on the PATH: run scripts/setup");
  }

  private static Run run(Path dir, String... command) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(false);
    if (dir != null) {
      pb.directory(dir.toFile());
    }
    Path err = Files.createTempFile("k8s-", ".err");
    pb.redirectError(err.toFile());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("did not end: " + String.join(" ", command));
    }
    String errors = readAndDelete(err);
    return new Run(p.exitValue(), p.exitValue() == 0 ? out : out + errors);
  }

  private static String readAndDelete(Path file) throws IOException {
    try {
      return Files.readString(file);
    } finally {
      Files.deleteIfExists(file);
    }
  }
}
