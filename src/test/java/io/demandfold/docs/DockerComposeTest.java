package io.demandfold.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.demandfold.config.DemandfoldConfig;
import io.demandfold.config.SettingsLoader;
import java.io.Reader;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docker-compose.yml, which no CI runs (no Docker engine), is held to the code: its services and
 * published ports, and demandfold's environment against the declared settings.
 */
class DockerComposeTest {
  private static final JsonNode COMPOSE = read();
  private static final JsonNode SERVICES = COMPOSE.get("services");

  private static JsonNode read() {
    try {
      return new YAMLMapper().readTree(Path.of("docker-compose.yml").toFile());
    } catch (Exception e) {
      throw new IllegalStateException("docker-compose.yml does not parse", e);
    }
  }

  private static Map<String, String> environment(String service) {
    Map<String, String> env = new LinkedHashMap<>();
    SERVICES
        .get(service)
        .get("environment")
        .properties()
        .forEach(e -> env.put(e.getKey(), e.getValue().asText()));
    return env;
  }

  /** Published ports as host address, host port, container port. */
  private static List<String[]> ports(String service) {
    List<String[]> out = new ArrayList<>();
    for (JsonNode p : SERVICES.get(service).path("ports")) {
      out.add(p.asText().split(":"));
    }
    return out;
  }

  private static String pomProperty(String name) throws Exception {
    Matcher m =
        Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)<")
            .matcher(Files.readString(Path.of("pom.xml")));
    assertThat(m.find()).as(name + " in pom.xml").isTrue();
    return m.group(1);
  }

  /** A service's bind mounts: host path (as written) to container path. */
  private static Map<String, String> mounts(String service) {
    Map<String, String> out = new LinkedHashMap<>();
    for (JsonNode v : SERVICES.get(service).path("volumes")) {
      String[] parts = v.asText().split(":");
      out.put(parts[0], parts[1]);
    }
    return out;
  }

  private static String flag(String service, String name) {
    for (JsonNode a : SERVICES.at("/" + service + "/command")) {
      if (a.asText().startsWith(name + "=")) {
        return a.asText().substring(name.length() + 1);
      }
    }
    throw new AssertionError(service + " has no " + name + " in its command");
  }

  @Test
  void shouldDefineKafkaEtcdDemandfoldAndConnectOnLoopbackPorts() throws Exception {
    assertThat(iterable(SERVICES.fieldNames()))
        .containsExactlyInAnyOrder(
            "kafka", "etcd", "demandfold", "connect", "prometheus", "grafana");
    String kafkaImage = "apache/kafka:" + pomProperty("kafka.version");
    assertThat(SERVICES.at("/kafka/image").asText()).isEqualTo(kafkaImage);
    assertThat(SERVICES.at("/connect/image").asText()).isEqualTo(kafkaImage);
    assertThat(SERVICES.at("/etcd/image").asText()).matches("quay\\.io/coreos/etcd:v3\\.5\\.\\d+");
    Map<String, String> published =
        Map.of(
            "kafka", "9092",
            "etcd", "2379",
            "demandfold", "8080",
            "connect", "8083",
            "prometheus", "9090",
            "grafana", "3000");
    published.forEach(
        (service, port) -> {
          assertThat(ports(service)).as(service).hasSize(1);
          String[] p = ports(service).get(0);
          assertThat(p).as(service + " ports").containsExactly("127.0.0.1", port, port);
        });
    assertThat(environment("kafka").get("KAFKA_PROCESS_ROLES")).isEqualTo("broker,controller");
    assertThat(environment("kafka").get("KAFKA_ADVERTISED_LISTENERS"))
        .contains("HOST://127.0.0.1:9092");
    for (String dependent : List.of("demandfold", "connect")) {
      assertThat(iterable(SERVICES.get(dependent).get("depends_on").fieldNames()))
          .contains("kafka", "etcd");
    }
  }

  @Test
  void shouldConfigureDemandfoldOnlyWithDeclaredSettingsPointingAtTheComposeServices()
      throws Exception {
    Map<String, String> env = environment("demandfold");
    assertThat(env.keySet()).allMatch(k -> k.startsWith("DEMANDFOLD_"));
    // the loader refuses a variable that names no declared setting (nor kafka.*), and bad values
    DemandfoldConfig config = new SettingsLoader().environment(env).load();
    assertThatThrownBy(() -> new SettingsLoader().environment(Map.of("DEMANDFOLD_HTTP_PROT", "1")))
        .isInstanceOf(ConfigException.class);

    String bootstrap = config.getString(DemandfoldConfig.BOOTSTRAP_SERVERS);
    assertThat(environment("kafka").get("KAFKA_ADVERTISED_LISTENERS")).contains("://" + bootstrap);
    assertThat(bootstrap).startsWith("kafka:");

    URI etcd = URI.create(config.getList(DemandfoldConfig.ETCD_ENDPOINTS).get(0));
    assertThat(etcd.getHost()).isEqualTo("etcd");
    assertThat(iterable(SERVICES.at("/etcd/command").elements()))
        .extracting(JsonNode::asText)
        .contains("--listen-client-urls=http://0.0.0.0:" + etcd.getPort());

    int http = config.getInt(DemandfoldConfig.HTTP_PORT);
    assertThat(config.getString(DemandfoldConfig.HTTP_HOST)).isEqualTo("0.0.0.0");
    assertThat(ports("demandfold").get(0)[2]).isEqualTo(String.valueOf(http));
    assertThat(config.kafkaSettings()).containsEntry("application.server", "demandfold:" + http);
  }

  @Test
  void shouldBuildDemandfoldFromTheJarAndRunIt() throws Exception {
    assertThat(SERVICES.at("/demandfold/build").asText()).isEqualTo(".");
    assertThat(iterable(SERVICES.at("/demandfold/command").elements()))
        .extracting(JsonNode::asText)
        .containsExactly("run");
    String dockerfile = Files.readString(Path.of("Dockerfile"));
    assertThat(dockerfile)
        .contains("ENTRYPOINT [\"java\", \"-jar\", \"target/demandfold.jar\"]")
        .contains("COPY target/lib/");
    assertThat(Files.readString(Path.of(".dockerignore"))).contains("!target/demandfold.jar");
  }

  @Test
  void shouldMountTheConnectPluginWhereTheWorkerLooksForPlugins() throws Exception {
    List<String> volumes = new ArrayList<>();
    SERVICES.at("/connect/volumes").forEach(v -> volumes.add(v.asText()));
    String plugin =
        volumes.stream()
            .filter(v -> v.startsWith("./target/connect-plugin:"))
            .findFirst()
            .orElseThrow();
    String properties =
        volumes.stream()
            .filter(v -> v.startsWith("./docker/connect-distributed.properties:"))
            .findFirst()
            .orElseThrow();
    Properties worker = new Properties();
    try (Reader r = Files.newBufferedReader(Path.of("docker/connect-distributed.properties"))) {
      worker.load(r);
    }
    assertThat(plugin.split(":")[1]).startsWith(worker.getProperty("plugin.path") + "/");
    assertThat(iterable(SERVICES.at("/connect/command").elements()))
        .extracting(JsonNode::asText)
        .containsExactly(properties.split(":")[1]);
    assertThat(worker.getProperty("bootstrap.servers"))
        .isEqualTo(environment("demandfold").get("DEMANDFOLD_KAFKA_BOOTSTRAP_SERVERS"));
    assertThat(worker.getProperty("listeners")).endsWith(":" + ports("connect").get(0)[2]);
  }

  @Test
  void shouldScrapeDemandfoldAndEvaluateTheAlertRulesInPrometheus(@TempDir Path tmp)
      throws Exception {
    Map<String, String> mounts = mounts("prometheus");
    String config = mounts.get("./deploy/prometheus/prometheus.yml");
    String rules = mounts.get("./deploy/prometheus/alerts.yml");
    assertThat(config).isEqualTo(flag("prometheus", "--config.file"));
    assertThat(flag("prometheus", "--web.listen-address"))
        .isEqualTo(":" + ports("prometheus").get(0)[2]);
    assertThat(iterable(SERVICES.at("/prometheus/depends_on").elements()))
        .extracting(JsonNode::asText)
        .contains("demandfold");

    JsonNode prometheus =
        new YAMLMapper().readTree(Path.of("deploy/prometheus/prometheus.yml").toFile());
    assertThat(prometheus.get("rule_files")).extracting(JsonNode::asText).containsExactly(rules);
    JsonNode job = prometheus.get("scrape_configs").get(0);
    assertThat(job.get("job_name").asText())
        .as("the job DemandfoldDown selects")
        .isEqualTo("demandfold");
    assertThat(job.get("metrics_path").asText()).isEqualTo("/metrics");
    DemandfoldConfig demandfold =
        new SettingsLoader().environment(environment("demandfold")).load();
    assertThat(job.at("/static_configs/0/targets"))
        .extracting(JsonNode::asText)
        .containsExactly("demandfold:" + demandfold.getInt(DemandfoldConfig.HTTP_PORT));

    // promtool checks the configuration with the rule file where the container has it
    String copy =
        Files.readString(Path.of("deploy/prometheus/prometheus.yml"))
            .replace(rules, Path.of("deploy/prometheus/alerts.yml").toAbsolutePath().toString());
    Path checked = Files.writeString(tmp.resolve("prometheus.yml"), copy);
    ProcessBuilder pb =
        new ProcessBuilder("/usr/bin/promtool", "check", "config", checked.toString())
            .redirectErrorStream(true);
    Process p = pb.start();
    String out =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(out).isZero();
    assertThat(out).contains("1 rule files found");
  }

  @Test
  void shouldProvisionGrafanaWithThePrometheusDataSourceAndTheDashboard() throws Exception {
    Map<String, String> mounts = mounts("grafana");
    assertThat(mounts.get("./deploy/grafana/provisioning")).isEqualTo("/etc/grafana/provisioning");
    String dashboard = mounts.get("./deploy/grafana/demandfold.json");
    assertThat(environment("grafana").get("GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"))
        .isEqualTo(dashboard);

    YAMLMapper yaml = new YAMLMapper();
    JsonNode provider =
        yaml.readTree(Path.of("deploy/grafana/provisioning/dashboards/demandfold.yml").toFile())
            .at("/providers/0");
    assertThat(provider.get("type").asText()).isEqualTo("file");
    assertThat(Path.of(dashboard).getParent().toString())
        .isEqualTo(provider.at("/options/path").asText());

    JsonNode source =
        yaml.readTree(Path.of("deploy/grafana/provisioning/datasources/prometheus.yml").toFile())
            .at("/datasources/0");
    assertThat(source.get("type").asText()).isEqualTo("prometheus");
    assertThat(source.get("url").asText())
        .isEqualTo("http://prometheus:" + ports("prometheus").get(0)[2]);
    JsonNode json =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(Path.of("deploy/grafana/demandfold.json").toFile());
    List<String> uids = new ArrayList<>();
    json.findValues("datasource").forEach(d -> uids.add(d.path("uid").asText()));
    assertThat(uids).isNotEmpty().allMatch(u -> u.equals(source.get("uid").asText()));
  }

  @Test
  void shouldSayInTheDocsThatCiDoesNotRunIt() {
    assertThat(Docs.section("docs/operations.md", "Docker compose").replaceAll("\\s+", " "))
        .contains("not exercised by CI");
  }

  private static <T> Iterable<T> iterable(java.util.Iterator<T> it) {
    List<T> out = new ArrayList<>();
    it.forEachRemaining(out::add);
    return out;
  }
}
