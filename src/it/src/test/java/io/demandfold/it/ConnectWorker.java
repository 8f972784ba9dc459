package io.demandfold.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.utils.Exit;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;

/**
 * A real Kafka Connect worker (distributed mode, from connect-runtime) in this JVM, on the class's
 * broker, with the packaged plugin ({@link Build#CONNECT_PLUGIN_DIR}, built by {@code mvn package})
 * on its {@code plugin.path}: the connectors run from the plugin's jars, loaded in isolation as in
 * a production worker. Driven through its REST API, the way operators drive it.
 */
final class ConnectWorker implements AutoCloseable {
  static final Path PLUGIN_PATH = Build.CONNECT_PLUGIN_DIR.toAbsolutePath();
  static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Connect<?> connect;
  private final URI rest;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(PATIENCE).build();

  private ConnectWorker(Connect<?> connect) {
    this.connect = connect;
    this.rest = connect.rest().serverUrl();
  }

  /** Starts a worker of group {@code name} and waits until its REST API answers. */
  static ConnectWorker start(Services services, String name) throws Exception {
    return start(services, name, 1);
  }

  /** A worker whose config, offset and status topics have {@code replicationFactor} replicas. */
  static ConnectWorker start(Services services, String name, int replicationFactor)
      throws Exception {
    if (!Files.isDirectory(PLUGIN_PATH.resolve("demandfold-connect"))) {
      throw new IllegalStateException(
          PLUGIN_PATH + " is missing: the connector tests run after `mvn package`");
    }
    Map<String, String> p = new HashMap<>();
    p.put("bootstrap.servers", services.bootstrapServers());
    p.put("group.id", name);
    p.put("config.storage.topic", name + "-configs");
    p.put("offset.storage.topic", name + "-offsets");
    p.put("status.storage.topic", name + "-status");
    String rf = Integer.toString(replicationFactor);
    p.put("config.storage.replication.factor", rf);
    p.put("offset.storage.replication.factor", rf);
    p.put("status.storage.replication.factor", rf);
    p.put("offset.storage.partitions", "1");
    p.put("status.storage.partitions", "1");
    p.put("offset.flush.interval.ms", "500");
    // the connectors set their own converters; the worker's default is what most workers use
    p.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
    p.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    p.put("listeners", "http://127.0.0.1:0");
    p.put("rest.advertised.host.name", "127.0.0.1");
    p.put("plugin.path", PLUGIN_PATH.toString());
    p.put("plugin.discovery", "service_load");
    p.put("scheduled.rebalance.max.delay.ms", "0");
    // a failing worker must fail the test, not end the JVM
    Exit.setExitProcedure(
        (code, message) -> {
          throw new IllegalStateException("Connect worker exit " + code + ": " + message);
        });
    Exit.setHaltProcedure(
        (code, message) -> {
          throw new IllegalStateException("Connect worker halt " + code + ": " + message);
        });
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    Connect<?> connect;
    try {
      connect = new ConnectDistributed().startConnect(p);
    } finally {
      Thread.currentThread().setContextClassLoader(loader);
    }
    ConnectWorker w = new ConnectWorker(connect);
    Harness.await(
        "the REST API of worker " + name + " at " + w.rest,
        () -> w.status("GET", "/connectors", null),
        status -> status == 200,
        PATIENCE);
    return w;
  }

  /** The {@code config} of a shipped {@code connectors/*.json}, with {@code overrides} on top. */
  static Map<String, String> shipped(String file, Map<String, String> overrides)
      throws IOException {
    Map<String, String> out = new HashMap<>();
    JSON.readTree(Path.of("connectors", file).toFile())
        .get("config")
        .properties()
        .forEach(e -> out.put(e.getKey(), e.getValue().asText()));
    out.putAll(overrides);
    return out;
  }

  /** Creates (or reconfigures) connector {@code name} and waits until it and its tasks run. */
  void create(String name, Map<String, String> config) throws Exception {
    HttpResponse<String> r =
        send("PUT", "/connectors/" + name + "/config", JSON.writeValueAsString(config));
    if (r.statusCode() / 100 != 2) {
      throw new IllegalStateException("creating " + name + ": " + r.statusCode() + " " + r.body());
    }
    awaitState(name, "RUNNING");
  }

  /** Creates connector {@code name} in the STOPPED state (to set its offsets before it runs). */
  void createStopped(String name, Map<String, String> config) throws Exception {
    HttpResponse<String> r =
        send(
            "POST",
            "/connectors",
            JSON.writeValueAsString(
                Map.of("name", name, "config", config, "initial_state", "STOPPED")));
    if (r.statusCode() / 100 != 2) {
      throw new IllegalStateException("creating " + name + ": " + r.statusCode() + " " + r.body());
    }
    awaitState(name, "STOPPED");
  }

  /** {@code PATCH /connectors/NAME/offsets} of a source connector's one partition. */
  void setOffset(String name, Map<String, ?> partition, Map<String, ?> offset) throws Exception {
    Map<String, Object> entry = new HashMap<>();
    entry.put("partition", partition);
    entry.put("offset", offset);
    HttpResponse<String> r =
        send(
            "PATCH",
            "/connectors/" + name + "/offsets",
            JSON.writeValueAsString(Map.of("offsets", java.util.List.of(entry))));
    if (r.statusCode() != 200) {
      throw new IllegalStateException(
          "offsets of " + name + ": " + r.statusCode() + " " + r.body());
    }
  }

  /** {@code PUT /connectors/NAME/stop}: tasks stop, offsets are committed. */
  void stop(String name) throws Exception {
    send("PUT", "/connectors/" + name + "/stop", null);
    awaitState(name, "STOPPED");
  }

  void resume(String name) throws Exception {
    send("PUT", "/connectors/" + name + "/resume", null);
    awaitState(name, "RUNNING");
  }

  void delete(String name) throws Exception {
    send("DELETE", "/connectors/" + name, null);
  }

  /** Waits until the connector and every task report {@code state}; fails with the status. */
  void awaitState(String name, String state) throws Exception {
    Harness.await(
        name + " and every task " + state,
        () -> status(name),
        s -> state(s).equals(state),
        PATIENCE);
  }

  /**
   * The connector's state if every task is in it (or, for STOPPED, has none), else the first task
   * state that differs.
   */
  String state(String name) {
    return state(status(name));
  }

  private static String state(JsonNode status) {
    String c = status.path("connector").path("state").asText("UNKNOWN");
    for (JsonNode t : status.path("tasks")) {
      if (!t.path("state").asText().equals(c)) {
        return t.path("state").asText();
      }
    }
    if (c.equals("RUNNING") && status.path("tasks").isEmpty()) {
      return "NO_TASKS";
    }
    return c;
  }

  /** {@code GET /connectors/NAME/status}, or the error that answered instead, as text. */
  private JsonNode status(String name) {
    try {
      return get("/connectors/" + name + "/status");
    } catch (Exception e) {
      return JSON.getNodeFactory().textNode(e.toString());
    }
  }

  /** {@code PUT /connector-plugins/CLASS/config/validate}: error messages by setting. */
  Map<String, String> validate(String connectorClass, Map<String, String> config) throws Exception {
    String simple = connectorClass.substring(connectorClass.lastIndexOf('.') + 1);
    HttpResponse<String> r =
        send(
            "PUT",
            "/connector-plugins/" + simple + "/config/validate",
            JSON.writeValueAsString(config));
    JsonNode result = JSON.readTree(r.body());
    Map<String, String> errors = new HashMap<>();
    for (JsonNode c : result.path("configs")) {
      JsonNode v = c.path("value");
      if (v.path("errors").size() > 0) {
        errors.put(v.path("name").asText(), v.path("errors").get(0).asText());
      }
    }
    if (errors.size() > result.path("error_count").asInt()) {
      throw new AssertionError("error_count disagrees with the errors: " + r.body());
    }
    return errors;
  }

  JsonNode get(String path) throws IOException, InterruptedException {
    return JSON.readTree(send("GET", path, null).body());
  }

  HttpResponse<String> send(String method, String path, String body)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(rest.resolve(path))
            .timeout(PATIENCE)
            .header("Content-Type", "application/json")
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private int status(String method, String path, String body) {
    try {
      return send(method, path, body).statusCode();
    } catch (Exception e) {
      return -1;
    }
  }

  /** Stops the worker: every connector's tasks stop and commit, the REST server closes. */
  @Override
  public void close() {
    try {
      connect.stop();
      connect.awaitStop();
    } finally {
      Exit.resetExitProcedure();
      Exit.resetHaltProcedure();
    }
  }
}
