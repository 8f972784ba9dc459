package io.demandfold.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** The server properties of a single-node KRaft broker on loopback. */
final class ServerProperties {
  /** The log directory (data and metadata) below the data directory. */
  static final String LOG_DIR = "kraft-logs";

  private ServerProperties() {}

  /**
   * Combined broker and controller on 127.0.0.1 with replication factor 1 for every internal topic:
   * without those overrides transactions and consumer groups wait forever for replicas.
   */
  static Map<String, String> combined(int nodeId, int port, int controllerPort, Path dataDir) {
    String host = FreePorts.LOOPBACK.getHostAddress();
    Map<String, String> p = new LinkedHashMap<>();
    p.put("process.roles", "broker,controller");
    p.put("node.id", Integer.toString(nodeId));
    p.put("controller.quorum.voters", nodeId + "@" + host + ":" + controllerPort);
    p.put(
        "listeners",
        "PLAINTEXT://" + host + ":" + port + ",CONTROLLER://" + host + ":" + controllerPort);
    p.put("advertised.listeners", "PLAINTEXT://" + host + ":" + port);
    p.put("controller.listener.names", "CONTROLLER");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.put("log.dirs", dataDir.resolve(LOG_DIR).toString());
    p.put("offsets.topic.replication.factor", "1");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    p.put("default.replication.factor", "1");
    p.put("min.insync.replicas", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("num.partitions", "1");
    p.put("auto.create.topics.enable", "false");
    return p;
  }

  /** {@code extra} with {@code ${port}} and {@code ${controller.port}} replaced by the ports. */
  static Map<String, String> resolve(Map<String, String> extra, int port, int controllerPort) {
    Map<String, String> resolved = new LinkedHashMap<>();
    extra.forEach(
        (name, value) ->
            resolved.put(
                name,
                value
                    .replace("${port}", Integer.toString(port))
                    .replace("${controller.port}", Integer.toString(controllerPort))));
    return resolved;
  }

  /** Writes {@code props} as a properties file, one {@code name=value} line each. */
  static void write(Map<String, String> props, Path file) {
    StringBuilder text = new StringBuilder();
    props.forEach(
        (name, value) ->
            text.append(name)
                .append('=')
                .append(value.replace("\\", "\\\\").replace("\n", "\\n"))
                .append('\n'));
    try {
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
