package io.demandfold.cli;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.config.SettingsLoader;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The settings options every service command shares. Precedence, lowest first: defaults, {@code
 * --config} file, {@code DEMANDFOLD_*} environment, flags ({@code --set} and the named ones).
 */
final class SettingsOptions {
  @Option(
      names = {"-c", "--config"},
      paramLabel = "FILE",
      description = "Properties file of settings (see 'demandfold settings').")
  Path config;

  @Option(
      names = "--set",
      paramLabel = "NAME=VALUE",
      description = "Any setting, e.g. --set mirror.concurrency=32; repeatable.")
  Map<String, String> set = new LinkedHashMap<>();

  @Option(
      names = "--bootstrap-servers",
      paramLabel = "HOST:PORT",
      description = "kafka.bootstrap.servers")
  String bootstrapServers;

  @Option(names = "--etcd-endpoints", paramLabel = "URL[,URL]", description = "etcd.endpoints")
  String etcdEndpoints;

  @Option(names = "--application-id", paramLabel = "ID", description = "application.id")
  String applicationId;

  /** Loads the settings, with {@code extra} flags of the calling command on top. */
  DemandfoldConfig load(Map<String, String> extra) {
    return loader(extra).load();
  }

  SettingsLoader loader(Map<String, String> extra) {
    SettingsLoader l = new SettingsLoader();
    if (config != null) {
      l.file(config);
    }
    l.environment(System.getenv());
    set.forEach((k, v) -> l.flag(k, v, "--set " + k));
    flag(l, DemandfoldConfig.BOOTSTRAP_SERVERS, bootstrapServers, "--bootstrap-servers");
    flag(l, DemandfoldConfig.ETCD_ENDPOINTS, etcdEndpoints, "--etcd-endpoints");
    flag(l, DemandfoldConfig.APPLICATION_ID, applicationId, "--application-id");
    extra.forEach((k, v) -> l.flag(k, v, "flag for " + k));
    return l;
  }

  private static void flag(SettingsLoader l, String name, String value, String flag) {
    if (value != null) {
      l.flag(name, value, flag);
    }
  }
}
