package io.demandfold.cli;

import io.demandfold.app.DemandfoldService;
import io.demandfold.app.StreamThreadFailures;
import io.demandfold.config.DemandfoldConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code demandfold run}: the pipeline against real clusters. */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the pipeline: folds the events topic with Kafka Streams (exactly once) and mirrors"
          + " the folded records into etcd; serves the dashboard, the HTTP API and /metrics"
          + " (http.*). SIGTERM or Ctrl-C stops it cleanly.",
      "Settings: --config file, DEMANDFOLD_* environment, flags (highest wins); see"
          + " 'demandfold settings'.",
      "State stores live under kafka.state.dir, by default $XDG_STATE_HOME/demandfold"
          + " (~/.local/state/demandfold), in a subdirectory named after application.id."
    })
final class RunCommand implements Callable<Integer> {
  /**
   * Kafka Streams' state directory, which would default to the OS temp directory: {@code run}
   * defaults it to the {@link StateHome} (the stores of an application go to a subdirectory named
   * after its {@code application.id}).
   */
  static final String STATE_DIR = "kafka.state.dir";

  @Mixin SettingsOptions settings;

  @Override
  public Integer call() throws Exception {
    DemandfoldConfig config =
        settings
            .loader(Map.of())
            .fallback(STATE_DIR, StateHome.current().toString(), "the default of 'run'")
            .load();
    DemandfoldService service =
        DemandfoldService.start(config, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    Thread hook = new Thread(service::close, "demandfold-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    service.awaitTermination();
    return service.failure() == null ? 0 : StreamThreadFailures.exitStatus(service.failure());
  }
}
