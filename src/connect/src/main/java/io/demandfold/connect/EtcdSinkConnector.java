package io.demandfold.connect;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

/**
 * The etcd sink: mirrors {@code demand.shard-records} (or folds {@code demand.events}) into etcd
 * with the pipeline's read-join-CAS. Settings: {@link EtcdSinkConfig}; converters: {@code
 * ByteArrayConverter}. Every task gets the same settings; Connect spreads the topic partitions.
 *
 * <pre>{@code
 * POST /connectors  (connectors/etcd-sink.json)
 * {"name":"demandfold-etcd-sink","config":{
 *   "connector.class":"io.demandfold.connect.EtcdSinkConnector",
 *   "topics":"demand.shard-records","etcd.endpoints":"http://etcd1:2379", ...}}
 * }</pre>
 */
public final class EtcdSinkConnector extends SinkConnector {
  private Map<String, String> props;

  @Override
  public String version() {
    return Version.get();
  }

  @Override
  public void start(Map<String, String> props) {
    new EtcdSinkConfig(props);
    this.props = Map.copyOf(props);
  }

  @Override
  public Class<? extends Task> taskClass() {
    return EtcdSinkTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return Collections.nCopies(maxTasks, props);
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return EtcdSinkConfig.DEFINITION;
  }

  @Override
  public Config validate(Map<String, String> connectorConfigs) {
    return EtcdConnectorConfig.validate(config(), connectorConfigs, EtcdSinkConfig::new);
  }
}
