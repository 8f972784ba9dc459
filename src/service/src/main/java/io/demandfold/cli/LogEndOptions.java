package io.demandfold.cli;

import java.io.IOException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code --until-offsets} and {@code --as-of}: where {@code audit}, {@code rebuild} and {@code fold
 * --from-topic} stop reading the log.
 */
final class LogEndOptions {
  @Option(
      names = "--until-offsets",
      paramLabel = "now|FILE",
      description =
          "Read up to the end offsets of now (default) or of a JSON file of partition to offset,"
              + " e.g. {\"0\":1200,\"1\":980}.")
  String untilOffsets;

  @Option(
      names = "--as-of",
      paramLabel = "TIME",
      description =
          "Read up to the offsets of TIME (ISO-8601 instant or epoch ms): per partition, the"
              + " events stamped before it (the consumer's offsetsForTimes).")
  String asOf;

  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  /** Whether either flag was given. */
  boolean given() {
    return untilOffsets != null || asOf != null;
  }

  /** The end the flags ask for; fails fast (exit 2) when both are given or the time is not one. */
  LogEnd end() {
    if (untilOffsets != null && asOf != null) {
      throw new ParameterException(
          mixee.commandLine(),
          "--as-of and --until-offsets are exclusive: give one of them, not both");
    }
    if (asOf != null) {
      return LogEnd.asOf(time(mixee, "--as-of", asOf));
    }
    if (untilOffsets != null && !untilOffsets.equals("now")) {
      try {
        OpsOptions.untilOffsets(untilOffsets, "");
      } catch (IllegalArgumentException | IOException e) {
        throw new ParameterException(mixee.commandLine(), e.getMessage());
      }
    }
    return LogEnd.offsets(untilOffsets);
  }

  /** {@link LogEnd#parseTime} with a failure reported as a bad flag (exit 2). */
  static long time(CommandSpec spec, String flag, String text) {
    try {
      return LogEnd.parseTime(flag, text);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }
}
