package io.demandfold.cli;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import org.apache.kafka.common.config.ConfigException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Entry point of the {@code demandfold} command. The commands of a jar on the class path that
 * provides {@link MoreCommands} (the development module: {@code local}, {@code bench}) are added to
 * those of the service.
 */
@Command(
    name = "demandfold",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "Folds per-shard watermark events into exact maintenance demand.",
    subcommands = {
      RunCommand.class,
      PublishCommand.class,
      InspectCommand.class,
      WatchCommand.class,
      AuditCommand.class,
      RebuildCommand.class,
      FoldCommand.class,
      SettingsCommand.class,
      CommandLine.HelpCommand.class
    })
public final class Main implements Runnable {
  @Spec CommandSpec spec;

  /** The development module's commands, which the service and its image do not ship. */
  private static final Set<String> DEVELOPMENT_COMMANDS = Set.of("local", "bench");

  public static void main(String[] args) {
    Logging.routeJavaUtilLogging();
    noVertxFileCache();
    CommandLine cl = commandLine();
    if (args.length > 0
        && DEVELOPMENT_COMMANDS.contains(args[0])
        && !cl.getSubcommands().containsKey(args[0])) {
      cl.getErr()
          .println(
              "demandfold "
                  + args[0]
                  + ": not in this build: the service (and its image) ships the pipeline and the"
                  + " operator commands; run ./demandfold "
                  + args[0]
                  + " from a clone of the repository");
      System.exit(EXIT_BAD_SETTING);
    }
    System.exit(cl.execute(args));
  }

  /**
   * jetcd runs on Vert.x, whose file resolver makes a {@code vertx-cache-*} directory in {@code
   * java.io.tmpdir} for files it might serve from the class path, removed only by a shutdown hook
   * that may not finish before the JVM ends. Nothing here serves files, so no directory is made
   * (unless a user sets the property).
   */
  static void noVertxFileCache() {
    if (System.getProperty("vertx.disableFileCPResolving") == null) {
      System.setProperty("vertx.disableFileCPResolving", "true");
    }
  }

  /**
   * Commands another module adds to {@code demandfold}, found with {@link ServiceLoader} (a {@code
   * META-INF/services/io.demandfold.cli.Main$MoreCommands} file).
   */
  public interface MoreCommands {
    /** Picocli command objects, each annotated with {@code @Command}. */
    List<Object> commands();
  }

  /** The configured command line, for tests. */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    for (MoreCommands more : ServiceLoader.load(MoreCommands.class)) {
      more.commands().forEach(cl::addSubcommand);
    }
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
