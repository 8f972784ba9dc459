package io.demandfold.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.sun.net.httpserver.HttpServer;
import io.demandfold.config.DemandfoldConfig;
import io.demandfold.config.SettingsLoader;
import io.demandfold.deploy.DeclaredSettings;
import io.demandfold.deploy.Dockerfile;
import io.demandfold.deploy.ServiceClose;
import java.io.Reader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docker-compose.yml and the Dockerfile, which no CI runs (no Docker engine), held to the code: the
 * services and published ports, demandfold's environment and the image's against the declared
 * settings, the images built from the sources alone (the build outputs of the module layout), a
 * non-root user, the state directory on a volume, the health check (run here by bash), and a stop
 * grace longer than the instance's close.
 */
class DockerComposeTest {
  /** The build outputs of the module layout, which the images copy from their build stages. */
  static final String SERVICE_JAR = "src/service/target/demandfold-service.jar";

  static final String SERVICE_LIB = "src/service/target/lib/";
  static final String CONNECT_PLUGIN = "src/connect/target/connect-plugin/demandfold-connect/";

  private static final Dockerfile DOCKERFILE = Dockerfile.read();
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
    // the worker's image is built FROM the same Kafka image
    // (shouldBuildBothImagesFromTheSourcesAlone)
    assertThat(SERVICES.at("/connect/image").asText()).isEqualTo("demandfold-connect:local");
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
    // the loader refuses a variable that names no declared setting (nor kafka.*), and bad values;
    // a kafka.* name must be one Kafka declares
    DemandfoldConfig config = DeclaredSettings.load(env);
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
  void shouldBuildBothImagesFromTheSourcesAlone() throws Exception {
    // compose builds the service and the worker from the Dockerfile's stages: no host build
    assertThat(SERVICES.at("/demandfold/build/context").asText()).isEqualTo(".");
    assertThat(SERVICES.at("/demandfold/build/target").asText())
        .isEqualTo(DOCKERFILE.last().name());
    assertThat(SERVICES.at("/connect/build/context").asText()).isEqualTo(".");
    assertThat(SERVICES.at("/connect/build/target").asText()).isEqualTo("connect");
    assertThat(iterable(SERVICES.at("/demandfold/command").elements()))
        .extracting(JsonNode::asText)
        .containsExactly("run");

    // what the stages take from the build context are sources a clean clone has, no build output
    List<String> fromContext = contextSources();
    assertThat(fromContext).contains("pom.xml", "src/", "schemas/", "connectors/");
    for (String source : fromContext) {
      assertThat(source).doesNotContain("target");
      assertThat(Path.of(source)).as("%s in the repository", source).exists();
    }
    Dockerfile.Stage sources = DOCKERFILE.stage("sources");
    assertThat(sources.from()).isEqualTo("maven:3.9-eclipse-temurin-17");
    String root = sources.last("WORKDIR").orElseThrow() + "/";
    assertMavenStage("build", "src/service");
    assertMavenStage("build-connect", "src/connect");

    // the service: a JRE with the service's jar and its lib/ beside it (the manifest's Class-Path)
    Dockerfile.Stage service = DOCKERFILE.last();
    assertThat(service.from()).isEqualTo("eclipse-temurin:17-jre");
    Map<String, String> copied = new LinkedHashMap<>();
    for (Dockerfile.Copy c : Dockerfile.copies(service)) {
      assertThat(c.flags())
          .as("the service stage copies from the build only")
          .containsEntry("from", "build");
      copied.put(c.sources().get(0), c.destination());
    }
    assertThat(copied.keySet()).containsExactlyInAnyOrder(root + SERVICE_JAR, root + SERVICE_LIB);
    String jar = copied.get(root + SERVICE_JAR);
    assertThat(Path.of(copied.get(root + SERVICE_LIB)))
        .isEqualTo(Path.of(jar).resolveSibling("lib"));
    assertThat(jsonArray(service.last("ENTRYPOINT").orElseThrow()))
        .containsExactly("java", "-jar", jar);
    assertThat(jsonArray(service.last("CMD").orElseThrow())).containsExactly("run");

    // the worker: the Kafka image demandfold is built with, the plugin in the worker's plugin.path
    Dockerfile.Stage connect = DOCKERFILE.stage("connect");
    assertThat(connect.from()).isEqualTo("apache/kafka:" + pomProperty("kafka.version"));
    Dockerfile.Copy plugin =
        Dockerfile.copies(connect).stream()
            .filter(c -> "build-connect".equals(c.flags().get("from")))
            .findFirst()
            .orElseThrow();
    assertThat(plugin.sources()).containsExactly(root + CONNECT_PLUGIN);
    assertThat(plugin.destination()).startsWith(worker().getProperty("plugin.path") + "/");
  }

  private static void assertMavenStage(String stage, String module) {
    Dockerfile.Stage s = DOCKERFILE.stage(stage);
    assertThat(s.from()).as(stage).isEqualTo("sources");
    assertThat(s.all("RUN"))
        .as("%s runs Maven for %s with a cache of the local repository", stage, module)
        .anyMatch(
            r ->
                r.contains("--mount=type=cache,target=/root/.m2")
                    && r.contains("mvn -B -DskipTests -pl " + module + " -am package"));
  }

  /** The sources of every COPY that reads the build context (no --from). */
  private static List<String> contextSources() {
    List<String> out = new ArrayList<>();
    for (Dockerfile.Stage s : DOCKERFILE.stages()) {
      for (Dockerfile.Copy c : Dockerfile.copies(s)) {
        if (!c.flags().containsKey("from")) {
          out.addAll(c.sources());
        }
      }
    }
    return out;
  }

  @Test
  void shouldSendTheBuildOnlyTheSourcesItCopies() throws Exception {
    List<String> rules =
        Files.readAllLines(Path.of(".dockerignore")).stream()
            .map(String::strip)
            .filter(l -> !l.isEmpty() && !l.startsWith("#"))
            .toList();
    assertThat(rules.get(0)).as("everything is left out but what is named").isEqualTo("*");
    for (String source : contextSources()) {
      assertThat(rules).as("%s is sent to the build", source).contains("!" + source);
    }
    int lastInclude = 0;
    for (int i = 0; i < rules.size(); i++) {
      lastInclude = rules.get(i).startsWith("!") ? i : lastInclude;
    }
    assertThat(rules.indexOf("**/target"))
        .as("**/target, after every inclusion, keeps a host build's output out")
        .isGreaterThan(lastInclude);
  }

  @Test
  void shouldRunTheServiceAsItsOwnUserWithItsStateOnAVolume() throws Exception {
    Dockerfile.Stage service = DOCKERFILE.last();
    // numeric, so that Kubernetes' runAsNonRoot can check it; the user is created with that uid
    assertThat(service.last("USER").orElseThrow()).isEqualTo("10001:10001");
    assertThat(service.all("RUN"))
        .anyMatch(r -> r.contains("useradd") && r.contains("--uid 10001"));
    String volume = service.last("VOLUME").orElseThrow();
    // the image's own setting puts the stores there, and the user owns it before it is a volume
    DemandfoldConfig image = DeclaredSettings.load(service.env());
    assertThat(image.kafkaSettings()).containsEntry("state.dir", volume);
    assertThat(service.all("RUN")).anyMatch(r -> r.contains("chown 10001:10001 " + volume));
    // compose: the same directory, on a named volume
    DemandfoldConfig compose = DeclaredSettings.load(environment("demandfold"));
    assertThat(compose.kafkaSettings()).containsEntry("state.dir", volume);
    assertThat(mounts("demandfold")).containsEntry("demandfold-state", volume);
    assertThat(COMPOSE.at("/volumes").has("demandfold-state")).isTrue();
  }

  @Test
  void shouldListenOnEveryInterfaceAndSizeTheHeapFromTheContainersMemory() throws Exception {
    Dockerfile.Stage service = DOCKERFILE.last();
    DemandfoldConfig image = DeclaredSettings.load(service.env());
    assertThat(service.env().keySet())
        .filteredOn(k -> k.startsWith("DEMANDFOLD_"))
        .containsExactlyInAnyOrder(
            "DEMANDFOLD_HTTP_HOST", "DEMANDFOLD_HTTP_PORT", "DEMANDFOLD_KAFKA_STATE_DIR");
    assertThat(image.getString(DemandfoldConfig.HTTP_HOST)).isEqualTo("0.0.0.0");
    int port = image.getInt(DemandfoldConfig.HTTP_PORT);
    assertThat(service.last("EXPOSE")).contains(String.valueOf(port));
    assertThat(ports("demandfold").get(0)[2]).isEqualTo(String.valueOf(port));

    String jvm = service.env().get("JAVA_TOOL_OPTIONS");
    Matcher heap = Pattern.compile("-XX:MaxRAMPercentage=(\\d+(?:\\.\\d+)?)").matcher(jvm);
    assertThat(heap.find()).as(jvm).isTrue();
    assertThat(Double.parseDouble(heap.group(1))).isBetween(25.0, 75.0);
    assertThat(jvm).as("a fixed heap would ignore the container's memory").doesNotContain("-Xmx");
  }

  @Test
  void shouldProbeHealthzOnTheConfiguredPort() throws Exception {
    String healthcheck = DOCKERFILE.last().last("HEALTHCHECK").orElseThrow();
    assertThat(healthcheck).contains("--timeout=");
    List<String> command = jsonArray(healthcheck.substring(healthcheck.indexOf("CMD ") + 4));
    assertThat(command.get(0)).isEqualTo("bash");
    int imagePort =
        DeclaredSettings.load(DOCKERFILE.last().env()).getInt(DemandfoldConfig.HTTP_PORT);
    assertThat(command.get(command.size() - 1))
        .contains("${DEMANDFOLD_HTTP_PORT:-" + imagePort + "}")
        .contains("/healthz");

    // the command itself, run by bash against a server answering /healthz as the instance does
    AtomicInteger status = new AtomicInteger(200);
    List<String> asked = new CopyOnWriteArrayList<>();
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
    server.createContext(
        "/",
        ex -> {
          asked.add(
              ex.getRequestURI().getPath() + " Host:" + ex.getRequestHeaders().getFirst("Host"));
          boolean health = ex.getRequestURI().getPath().equals("/healthz");
          ex.sendResponseHeaders(health ? status.get() : 404, -1);
          ex.close();
        });
    server.start();
    int port = server.getAddress().getPort();
    try {
      assertThat(runProbe(command, port)).as("healthy").isZero();
      // an IP address in Host: the instance answers any (AllowedHosts), unlike unknown names
      assertThat(asked).containsExactly("/healthz Host:127.0.0.1");
      status.set(503);
      assertThat(runProbe(command, port)).as("answering 503").isNotZero();
      assertThat(asked).hasSize(2);
    } finally {
      server.stop(0);
    }
    assertThat(runProbe(command, port)).as("not listening").isNotZero();
  }

  /** Runs the HEALTHCHECK command as Docker would, with the port setting of the container. */
  private static int runProbe(List<String> command, int port) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("DEMANDFOLD_HTTP_PORT", String.valueOf(port));
    Process p = pb.start();
    p.getInputStream().readAllBytes();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("the health check did not end: " + command);
    }
    return p.exitValue();
  }

  @Test
  void shouldGiveTheServiceLongerToStopThanItsClose() {
    Duration close = ServiceClose.budget();
    assertThat(close).isPositive();
    Duration grace = composeDuration(SERVICES.at("/demandfold/stop_grace_period").asText());
    assertThat(grace).as("stop_grace_period against the close's %s", close).isGreaterThan(close);
    assertThat(DOCKERFILE.last().all("STOPSIGNAL")).allMatch(s -> s.equals("SIGTERM"));
  }

  /** A compose duration such as {@code 45s} or {@code 1m30s}. */
  private static Duration composeDuration(String text) {
    Matcher m = Pattern.compile("(\\d+)(ms|h|m|s)").matcher(text);
    Duration d = Duration.ZERO;
    int end = 0;
    while (m.find() && m.start() == end) {
      long n = Long.parseLong(m.group(1));
      d =
          d.plus(
              switch (m.group(2)) {
                case "h" -> Duration.ofHours(n);
                case "m" -> Duration.ofMinutes(n);
                case "s" -> Duration.ofSeconds(n);
                default -> Duration.ofMillis(n);
              });
      end = m.end();
    }
    assertThat(end).as("a compose duration: %s", text).isEqualTo(text.length()).isPositive();
    return d;
  }

  private static List<String> jsonArray(String json) throws Exception {
    List<String> out = new ArrayList<>();
    new ObjectMapper().readTree(json).forEach(n -> out.add(n.asText()));
    return out;
  }

  private static Properties worker() throws Exception {
    Properties worker = new Properties();
    try (Reader r = Files.newBufferedReader(Path.of("docker/connect-distributed.properties"))) {
      worker.load(r);
    }
    return worker;
  }

  @Test
  void shouldRunTheConnectWorkerWithItsPropertiesAgainstTheComposeKafka() throws Exception {
    List<String> volumes = new ArrayList<>();
    SERVICES.at("/connect/volumes").forEach(v -> volumes.add(v.asText()));
    String properties =
        volumes.stream()
            .filter(v -> v.startsWith("./docker/connect-distributed.properties:"))
            .findFirst()
            .orElseThrow()
            .split(":")[1];
    assertThat(iterable(SERVICES.at("/connect/command").elements()))
        .extracting(JsonNode::asText)
        .containsExactly(properties);
    // the image alone starts the same way
    Dockerfile.Stage connect = DOCKERFILE.stage("connect");
    assertThat(jsonArray(connect.last("CMD").orElseThrow())).containsExactly(properties);
    assertThat(jsonArray(connect.last("ENTRYPOINT").orElseThrow()))
        .containsExactly(SERVICES.at("/connect/entrypoint/0").asText());
    Properties worker = worker();
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
    // the dashboard names no uid (GrafanaDashboardTest): its data source variable, left at the
    // placeholder of an import, takes the default data source, which is this one
    assertThat(source.get("isDefault").asBoolean()).isTrue();
    JsonNode json = new ObjectMapper().readTree(Path.of("deploy/grafana/demandfold.json").toFile());
    List<String> uids = new ArrayList<>();
    json.findValues("datasource").forEach(d -> uids.add(d.path("uid").asText()));
    assertThat(uids).isNotEmpty().allMatch(u -> u.equals("${datasource}"));
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
