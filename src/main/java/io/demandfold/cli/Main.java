package io.demandfold.cli;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.config.ConfigException;
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
    subcommands = {
      LocalCommand.class,
      RunCommand.class,
      PublishCommand.class,
      InspectCommand.class,
      WatchCommand.class,
      AuditCommand.class,
      RebuildCommand.class,
      BenchCommand.class,
      FoldCommand.class,
      SettingsCommand.class,
      CommandLine.HelpCommand.class
    })
public final class Main implements Runnable {
  @Spec CommandSpec spec;

  public static void main(String[] args) {
    Logging.routeJavaUtilLogging();
    System.exit(commandLine().execute(args));
  }

  /** The configured command line, for tests. */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    cl.setOut(new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true));
    cl.setErr(new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true));
    cl.setExecutionExceptionHandler(Main::failed);
    return cl;
  }

  /** Exit status of a bad setting. */
  static final int EXIT_BAD_SETTING = 2;

  /**
   * Prints a failure as one line naming what is wrong: a bad setting (exit 2) or a service that
   * cannot start (exit 1); a stack trace only for what looks like a bug.
   */
  private static int failed(Exception e, CommandLine cl, CommandLine.ParseResult parsed) {
    PrintWriter err = cl.getErr();
    String command = cl.getCommandName();
    if (e instanceof ConfigException) {
      err.println("demandfold " + command + ": bad setting: " + e.getMessage());
      return EXIT_BAD_SETTING;
    }
    if (e instanceof IllegalStateException || e instanceof IllegalArgumentException) {
      err.println("demandfold " + command + ": " + e.getMessage());
      return 1;
    }
    err.println("demandfold " + command + ": failed: " + e);
    e.printStackTrace(err);
    return 1;
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
