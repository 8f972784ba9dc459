package io.demandfold.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The repository's {@code Dockerfile} read as text, the way the builder reads it: continuation
 * lines joined, comments dropped, instructions grouped into stages. No Docker engine runs here (nor
 * in CI), so tests hold the file to the code through this.
 */
public final class Dockerfile {
  /** The file, relative to the repository root (the tests' working directory). */
  public static final Path PATH = Path.of("Dockerfile");

  private static final Pattern FROM =
      Pattern.compile(
          "(?:--platform=\\S+\\s+)?(\\S+)(?:\\s+AS\\s+(\\S+))?", Pattern.CASE_INSENSITIVE);
  private static final Pattern ENV_PAIR =
      Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=(\"(?:[^\"\\\\]|\\\\.)*\"|\\S+)");

  /**
   * One instruction: the keyword upper case, the rest as written (continuations joined by a space).
   */
  public record Instruction(String keyword, String args) {}

  /** A stage: the image it starts {@code FROM}, its name ({@code AS}), its instructions. */
  public record Stage(String from, String name, List<Instruction> instructions) {
    /** The arguments of every instruction of {@code keyword} in this stage. */
    public List<String> all(String keyword) {
      return instructions.stream()
          .filter(i -> i.keyword().equals(keyword))
          .map(i -> i.args())
          .toList();
    }

    /** The arguments of the last instruction of {@code keyword}, the one that counts. */
    public Optional<String> last(String keyword) {
      List<String> all = all(keyword);
      return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
    }

    /** The {@code ENV} variables this stage sets, in order (quotes removed). */
    public Map<String, String> env() {
      Map<String, String> out = new LinkedHashMap<>();
      for (String args : all("ENV")) {
        Matcher m = ENV_PAIR.matcher(args);
        while (m.find()) {
          String v = m.group(2);
          out.put(m.group(1), v.startsWith("\"") ? v.substring(1, v.length() - 1) : v);
        }
      }
      return out;
    }
  }

  private final List<Stage> stages;

  private Dockerfile(List<Stage> stages) {
    this.stages = List.copyOf(stages);
  }

  /** Reads {@link #PATH}. */
  public static Dockerfile read() {
    try {
      return parse(Files.readString(PATH));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Parses a Dockerfile's text. */
  public static Dockerfile parse(String text) {
    List<String> logical = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : text.split("\n", -1)) {
      String trimmed = line.strip();
      if (trimmed.startsWith("#") || (trimmed.isEmpty() && current.length() == 0)) {
        continue; // a comment (also inside a continued instruction), or a blank line
      }
      if (trimmed.endsWith("\\")) {
        current.append(trimmed, 0, trimmed.length() - 1).append(' ');
        continue;
      }
      current.append(trimmed);
      if (current.length() > 0) {
        logical.add(current.toString().strip());
      }
      current.setLength(0);
    }
    List<Stage> stages = new ArrayList<>();
    List<Instruction> instructions = null;
    for (String l : logical) {
      String[] kv = l.split("\\s+", 2);
      String keyword = kv[0].toUpperCase(Locale.ROOT);
      String args = kv.length > 1 ? kv[1].strip() : "";
      if (keyword.equals("FROM")) {
        Matcher m = FROM.matcher(args);
        if (!m.matches()) {
          throw new IllegalArgumentException("cannot read FROM " + args);
        }
        instructions = new ArrayList<>();
        stages.add(new Stage(m.group(1), m.group(2), instructions));
      } else if (instructions == null) {
        if (!keyword.equals("ARG")) {
          throw new IllegalArgumentException(keyword + " before the first FROM");
        }
      } else {
        instructions.add(new Instruction(keyword, args));
      }
    }
    return new Dockerfile(stages);
  }

  /** Every stage, in order; the last one is what {@code docker build .} builds. */
  public List<Stage> stages() {
    return stages;
  }

  /** The stage named {@code name}. */
  public Stage stage(String name) {
    return stages.stream()
        .filter(s -> name.equals(s.name()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("the Dockerfile has no stage '" + name + "'"));
  }

  /** The stage {@code docker build .} builds without {@code --target}. */
  public Stage last() {
    return stages.get(stages.size() - 1);
  }

  /**
   * A {@code COPY} (the shell form): its flags ({@code from=build}), its sources, its destination.
   */
  public record Copy(Map<String, String> flags, List<String> sources, String destination) {
    /** Parses the arguments of a {@code COPY} instruction (the shell form). */
    public static Copy of(String args) {
      Map<String, String> flags = new LinkedHashMap<>();
      List<String> paths = new ArrayList<>();
      for (String word : args.split("\\s+")) {
        if (word.startsWith("--")) {
          String[] f = word.substring(2).split("=", 2);
          flags.put(f[0], f.length > 1 ? f[1] : "");
        } else {
          paths.add(word);
        }
      }
      return new Copy(
          flags, List.copyOf(paths.subList(0, paths.size() - 1)), paths.get(paths.size() - 1));
    }
  }

  /** Every {@code COPY} of {@code stage}. */
  public static List<Copy> copies(Stage stage) {
    return stage.all("COPY").stream().map(Copy::of).toList();
  }
}
