package io.demandfold.cli;

import io.demandfold.config.DemandfoldConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine.Option;

/** Options shared by {@code inspect}, {@code audit} and {@code rebuild}. */
final class OpsOptions {
  @Option(names = "--prefix", paramLabel = "PREFIX", description = "etcd.prefix for this command.")
  String prefix;

  /** The settings, with {@code --prefix} on top. */
  DemandfoldConfig load(SettingsOptions settings) {
    Map<String, String> extra = new HashMap<>();
    if (prefix != null) {
      extra.put(DemandfoldConfig.ETCD_PREFIX, prefix);
    }
    return settings.load(extra);
  }

  /**
   * The end offsets to read up to: {@code null} for "now", else a JSON object of partition to
   * offset, e.g. {@code {"0":1200,"1":980}}.
   */
  static Map<TopicPartition, Long> untilOffsets(String spec, String topic) throws IOException {
    if (spec == null || spec.equals("now")) {
      return null;
    }
    Path file = Path.of(spec);
    if (!Files.isReadable(file)) {
      throw new IllegalArgumentException(
          "--until-offsets: '" + spec + "' is neither 'now' nor a readable file");
    }
    Map<TopicPartition, Long> out = new HashMap<>();
    var node = new com.fasterxml.jackson.databind.ObjectMapper().readTree(file.toFile());
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException(
          "--until-offsets: " + spec + " must hold a JSON object of partition to offset");
    }
    for (var it = node.properties().iterator(); it.hasNext(); ) {
      var e = it.next();
      try {
        out.put(new TopicPartition(topic, Integer.parseInt(e.getKey())), e.getValue().asLong());
      } catch (NumberFormatException x) {
        throw new IllegalArgumentException(
            "--until-offsets: partition '" + e.getKey() + "' in " + spec + " is not a number");
      }
    }
    return out;
  }
}
