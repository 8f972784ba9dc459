package io.demandfold.connect;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * The etcd source: turns the records other writers put under {@code <prefix>/demand-events/} into
 * events on {@code demand.events}. One task (one watch of one prefix) whatever {@code tasks.max}
 * says. Settings: {@link EtcdSourceConfig}; converters: {@code ByteArrayConverter}.
 *
 * <pre>{@code
 * POST /connectors  (connectors/etcd-source.json)
 * {"name":"demandfold-etcd-source","config":{
 *   "connector.class":"io.demandfold.connect.EtcdSourceConnector",
 *   "topic":"demand.events","etcd.endpoints":"http://etcd1:2379", ...}}
 * }</pre>
 */
public final class EtcdSourceConnector extends SourceConnector {
  private Map<String, String> props;

  @Override
  public String version() {
    return Version.get();
  }

  @Override
  public void start(Map<String, String> props) {
    new EtcdSourceConfig(props);
    this.props = Map.copyOf(props);
  }

  @Override
  public Class<? extends Task> taskClass() {
    return EtcdSourceTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return List.of(props);
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return EtcdSourceConfig.DEFINITION;
  }

  @Override
  public Config validate(Map<String, String> connectorConfigs) {
    return EtcdConnectorConfig.validate(config(), connectorConfigs, EtcdSourceConfig::new);
  }

  /**
   * Accepts offsets set through Connect's REST API ({@code PATCH /connectors/NAME/offsets}) only
   * when they are the source's own shape: partition {@code {"etcd.prefix": P}}, offset {@code
   * {"phase":"watch"|"snapshot","revision":R,...}} or {@code null} (reset: a fresh snapshot).
   */
  @Override
  public boolean alterOffsets(
      Map<String, String> connectorConfig, Map<Map<String, ?>, Map<String, ?>> offsets) {
    for (Map.Entry<Map<String, ?>, Map<String, ?>> e : offsets.entrySet()) {
      Object prefix = e.getKey().get(SourceOffset.PARTITION_KEY);
      if (!(prefix instanceof String) || e.getKey().size() != 1) {
        throw new ConnectException(
            "a source partition is {\""
                + SourceOffset.PARTITION_KEY
                + "\": <prefix>}, got "
                + e.getKey());
      }
      if (e.getValue() != null) {
        try {
          SourceOffset.parse(e.getValue());
        } catch (IllegalArgumentException x) {
          throw new ConnectException("invalid offset " + e.getValue() + ": " + x.getMessage());
        }
      }
    }
    return true;
  }
}
