package io.demandfold.cli;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** Entry point of the {@code demandfold} command. */
@Command(
    name = "demandfold",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "Folds per-shard watermark events into exact maintenance demand.",
    subcommands = {FoldCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {
  @Spec CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The configured command line, for tests. */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    cl.setOut(new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true));
    cl.setErr(new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true));
    return cl;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Prints the version from the jar manifest. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Main.class.getPackage().getImplementationVersion();
      return new String[] {"demandfold " + (v == null ? "(development build)" : v)};
    }
  }
}
