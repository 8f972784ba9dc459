package io.demandfold.cli;

import io.demandfold.config.DemandfoldConfig;
import java.io.PrintWriter;
import java.util.Locale;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.types.Password;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code demandfold settings}: every setting with its environment form, default and meaning. */
@Command(
    name = "settings",
    mixinStandardHelpOptions = true,
    description =
        "Prints every setting as a Markdown table (docs/configuration.md's table is this output).")
final class SettingsCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    PrintWriter out = spec.commandLine().getOut();
    out.print(table());
    out.flush();
  }

  /** The Markdown table of every declared setting. */
  static String table() {
    StringBuilder sb = new StringBuilder();
    sb.append("| setting | environment | default | meaning |\n|---|---|---|---|\n");
    for (ConfigDef.ConfigKey k : DemandfoldConfig.DEFINITION.configKeys().values()) {
      sb.append("| `")
          .append(k.name)
          .append("` | `DEMANDFOLD_")
          .append(k.name.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_'))
          .append("` | ")
          .append(defaultOf(k))
          .append(" | ")
          .append(k.documentation.replace("|", "\\|"))
          .append(" |\n");
    }
    sb.append(
        "| `kafka.*` | `DEMANDFOLD_KAFKA_*` | | Any Kafka client or Streams setting, without the"
            + " prefix: e.g. `kafka.security.protocol`, `kafka.sasl.jaas.config`,"
            + " `kafka.num.stream.threads`, `kafka.commit.interval.ms`. |\n");
    return sb.toString();
  }

  private static String defaultOf(ConfigDef.ConfigKey k) {
    if (!k.hasDefault()) {
      return "(required)";
    }
    Object v = k.defaultValue;
    if (v == null || v instanceof Password) {
      return "(none)";
    }
    String s =
        v instanceof java.util.List<?> l
            ? String.join(",", l.stream().map(String::valueOf).toList())
            : String.valueOf(v);
    return s.isEmpty() ? "(empty)" : "`" + s + "`";
  }
}
