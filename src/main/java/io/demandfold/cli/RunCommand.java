package io.demandfold.cli;

import io.demandfold.app.DemandfoldService;
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
          + " 'demandfold settings'."
    })
final class RunCommand implements Callable<Integer> {
  @Mixin SettingsOptions settings;

  @Override
  public Integer call() throws Exception {
    DemandfoldConfig config = settings.load(Map.of());
    DemandfoldService service =
        DemandfoldService.start(config, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    Thread hook = new Thread(service::close, "demandfold-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    service.awaitTermination();
    return service.failure() == null ? 0 : 1;
  }
}
