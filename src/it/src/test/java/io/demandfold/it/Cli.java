package io.demandfold.it;

import io.demandfold.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/**
 * A demandfold command run in the test JVM: its exit status, what it printed and how long it took.
 */
record Cli(int exit, String out, String err, long millis) {

  /** Runs {@code command} with every setting as {@code --set KEY=VALUE}. */
  static Cli run(String command, Map<String, String> settings) {
    List<String> args = new ArrayList<>(List.of(command));
    settings.forEach((k, v) -> args.addAll(List.of("--set", k + "=" + v)));
    return run(args);
  }

  static Cli run(List<String> args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = Main.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    long t0 = System.nanoTime();
    int exit = cl.execute(args.toArray(String[]::new));
    return new Cli(exit, out.toString(), err.toString(), (System.nanoTime() - t0) / 1_000_000);
  }
}
