package io.demandfold.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.demandfold.config.DemandfoldConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code deploy/kubernetes}, rendered by {@code kubectl kustomize} and validated object by object
 * against the Kubernetes, Prometheus Operator and Strimzi schemas (the kubernetes-models
 * validators, run by Node.js), then held to the code: the settings the StatefulSet passes are
 * declared ones, the probes hit the HTTP server's paths and port, the grace period outlasts the
 * close, the state directory is the volume claim, application.server is the pod's name under the
 * headless Service, the PrometheusRule is alerts.yml, and the KafkaConnectors are
 * connectors/*.json.
 */
class KubernetesManifestsTest {
  /** What the downward API gives the first pod, for $(POD_NAME) and $(POD_NAMESPACE). */
  private static final Map<String, String> DOWNWARD =
      Map.of("metadata.name", "demandfold-0", "metadata.namespace", "demandfold");

  private static final Pattern REFERENCE = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");
  private static final List<String> PARTS = List.of("service", "monitoring", "connect");

  private static List<JsonNode> objects;

  @BeforeAll
  static void render() throws Exception {
    objects = Kubernetes.render(Kubernetes.BASE);
  }

  private static List<JsonNode> all(String kind) {
    return objects.stream().filter(o -> o.path("kind").asText().equals(kind)).toList();
  }

  private static JsonNode one(String kind, String name) {
    return all(kind).stream()
        .filter(o -> o.at("/metadata/name").asText().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind + " " + name));
  }

  private static JsonNode statefulSet() {
    return one("StatefulSet", "demandfold");
  }

  private static JsonNode container() {
    return statefulSet().at("/spec/template/spec/containers/0");
  }

  /**
   * The container's environment as the kubelet gives it to the first pod: fieldRefs from the
   * downward API, $(VAR) references to variables defined before them expanded.
   */
  private static Map<String, String> environment() {
    Map<String, String> env = new LinkedHashMap<>();
    for (JsonNode e : container().get("env")) {
      String value;
      if (e.has("valueFrom")) {
        value = DOWNWARD.get(e.at("/valueFrom/fieldRef/fieldPath").asText());
        assertThat(value).as("the downward API field of %s", e.get("name")).isNotNull();
      } else {
        Matcher m = REFERENCE.matcher(e.get("value").asText());
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
          String ref = env.get(m.group(1));
          assertThat(ref)
              .as("%s refers to $(%s), defined before it", e.get("name"), m.group(1))
              .isNotNull();
          m.appendReplacement(sb, Matcher.quoteReplacement(ref));
        }
        value = m.appendTail(sb).toString();
      }
      env.put(e.get("name").asText(), value);
    }
    return env;
  }

  private static DemandfoldConfig settings() {
    return DeclaredSettings.load(environment());
  }

  @Test
  void shouldRenderTheBaseFromItsThreeParts() throws Exception {
    Map<String, Integer> kinds = new TreeMap<>();
    objects.forEach(o -> kinds.merge(o.get("kind").asText(), 1, Integer::sum));
    assertThat(kinds)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "StatefulSet", 1,
                "Service", 2,
                "PodDisruptionBudget", 1,
                "ServiceMonitor", 1,
                "PrometheusRule", 1,
                "KafkaConnect", 1,
                "KafkaConnector", 2));
    // the base lists exactly the files of its parts, and each part renders on its own
    YAMLMapper yaml = new YAMLMapper();
    List<String> listed = new ArrayList<>();
    yaml.readTree(Kubernetes.BASE.resolve("kustomization.yaml").toFile())
        .get("resources")
        .forEach(r -> listed.add(r.asText()));
    List<String> parts = new ArrayList<>();
    int rendered = 0;
    for (String part : PARTS) {
      yaml.readTree(Kubernetes.BASE.resolve(part).resolve("kustomization.yaml").toFile())
          .get("resources")
          .forEach(r -> parts.add(part + "/" + r.asText()));
      rendered += Kubernetes.render(Kubernetes.BASE.resolve(part)).size();
    }
    assertThat(listed).containsExactlyElementsOf(parts);
    assertThat(rendered).isEqualTo(objects.size());
  }

  @Test
  void shouldValidateEveryObjectAgainstItsSchema() throws Exception {
    List<JsonNode> verdicts = Kubernetes.validate(objects);
    for (JsonNode v : verdicts) {
      assertThat(v.get("valid").asBoolean())
          .as("%s %s: %s", v.get("kind"), v.get("name"), v.get("errors"))
          .isTrue();
    }
    assertThat(verdicts).hasSize(objects.size());

    // the validator is live for each family of schemas: a wrong type in each is refused
    List<JsonNode> broken = new ArrayList<>();
    ObjectNode sts = statefulSet().deepCopy();
    ((ObjectNode) sts.at("/spec/template/spec/containers/0/ports/0")).put("containerPort", "8080");
    broken.add(sts);
    ObjectNode connect = one("KafkaConnect", "demandfold-connect").deepCopy();
    ((ObjectNode) connect.get("spec")).put("replicas", "one");
    broken.add(connect);
    ObjectNode monitor = one("ServiceMonitor", "demandfold").deepCopy();
    ((ObjectNode) monitor.get("spec")).put("endpoints", "http");
    broken.add(monitor);
    ObjectNode unknown = one("PodDisruptionBudget", "demandfold").deepCopy();
    unknown.put("apiVersion", "policy/v0");
    broken.add(unknown);
    for (JsonNode v : Kubernetes.validate(broken)) {
      assertThat(v.get("valid").asBoolean()).as("%s refused", v).isFalse();
    }
  }

  @Test
  void shouldPassOnlyDeclaredSettings() {
    Map<String, String> env = environment();
    assertThat(env.keySet())
        .filteredOn(k -> !k.startsWith("POD_"))
        .allMatch(k -> k.startsWith("DEMANDFOLD_"));
    // the loader refuses undeclared names and bad values; a kafka.* name must be Kafka's
    DemandfoldConfig config = settings();
    assertThat(config.getString(DemandfoldConfig.HTTP_HOST)).isEqualTo("0.0.0.0");
    assertThat(config.getList(DemandfoldConfig.HTTP_ALLOWED_HOSTS))
        .contains("demandfold", "demandfold.demandfold.svc");
    assertThat(container().at("/envFrom/0/secretRef/optional").asBoolean()).isTrue();
  }

  @Test
  void shouldAnnounceEachPodByItsNameUnderTheHeadlessService() {
    JsonNode sts = statefulSet();
    String headless = sts.at("/spec/serviceName").asText();
    JsonNode service = one("Service", headless);
    assertThat(service.at("/spec/clusterIP").asText()).isEqualTo("None");
    assertThat(service.at("/spec/publishNotReadyAddresses").asBoolean())
        .as("peers resolve each other before they are ready")
        .isTrue();
    int port = settings().getInt(DemandfoldConfig.HTTP_PORT);
    assertThat(settings().kafkaSettings())
        .containsEntry(
            "application.server", "demandfold-0." + headless + ".demandfold.svc:" + port);
    for (JsonNode s : all("Service")) {
      assertThat(s.at("/spec/selector")).isEqualTo(sts.at("/spec/template/metadata/labels"));
      assertThat(s.at("/spec/ports/0/targetPort").asText()).isEqualTo("http");
      assertThat(s.at("/spec/ports/0/port").asInt()).isEqualTo(port);
    }
    assertThat(sts.at("/spec/selector/matchLabels"))
        .isEqualTo(sts.at("/spec/template/metadata/labels"));
  }

  @Test
  void shouldProbeHealthzAndReadyzOnTheHttpServersPort() {
    JsonNode c = container();
    assertThat(c.at("/ports/0/name").asText()).isEqualTo("http");
    assertThat(c.at("/ports/0/containerPort").asInt())
        .isEqualTo(settings().getInt(DemandfoldConfig.HTTP_PORT));
    Map<String, String> paths =
        Map.of(
            "livenessProbe", "/healthz", "readinessProbe", "/readyz", "startupProbe", "/healthz");
    paths.forEach(
        (probe, path) -> {
          assertThat(c.at("/" + probe + "/httpGet/path").asText()).as(probe).isEqualTo(path);
          assertThat(c.at("/" + probe + "/httpGet/port").asText()).as(probe).isEqualTo("http");
        });
    // /healthz answers once the start's checks passed (admin requests of up to 60 s); the restore
    // comes after it, under readiness, so only the start needs the startup probe's patience
    JsonNode startup = c.get("startupProbe");
    Duration patience =
        Duration.ofSeconds(
            (long) startup.get("periodSeconds").asInt() * startup.get("failureThreshold").asInt());
    assertThat(patience).isGreaterThanOrEqualTo(Duration.ofMinutes(5));
    assertThat(c.at("/args")).extracting(JsonNode::asText).containsExactly("run");
  }

  @Test
  void shouldGiveThePodsLongerToStopThanTheClose() {
    Duration grace =
        Duration.ofSeconds(
            statefulSet().at("/spec/template/spec/terminationGracePeriodSeconds").asLong());
    assertThat(grace).isGreaterThan(ServiceClose.budget());
  }

  @Test
  void shouldKeepTheStoresOnAVolumeClaimPerPodOwnedByTheImagesUser() {
    JsonNode sts = statefulSet();
    String claim = sts.at("/spec/volumeClaimTemplates/0/metadata/name").asText();
    String mounted = null;
    for (JsonNode m : container().get("volumeMounts")) {
      mounted = m.get("name").asText().equals(claim) ? m.get("mountPath").asText() : mounted;
    }
    assertThat(mounted).as("the claim %s mounted", claim).isNotNull();
    assertThat(settings().kafkaSettings()).containsEntry("state.dir", mounted);
    Dockerfile.Stage image = Dockerfile.read().last();
    assertThat(image.last("VOLUME")).contains(mounted);
    String uid = image.last("USER").orElseThrow().split(":")[0];
    JsonNode security = sts.at("/spec/template/spec/securityContext");
    assertThat(security.get("runAsUser").asText()).isEqualTo(uid);
    assertThat(security.get("fsGroup").asText()).isEqualTo(uid);
    assertThat(security.get("runAsNonRoot").asBoolean()).isTrue();
    // a read-only root file system: the native libraries unpack into the /tmp volume
    assertThat(container().at("/securityContext/readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(container().get("volumeMounts"))
        .anyMatch(m -> m.get("mountPath").asText().equals("/tmp"));
  }

  @Test
  void shouldBoundDisruptionsAndKeepFewerStandbysThanPods() {
    JsonNode sts = statefulSet();
    int replicas = sts.at("/spec/replicas").asInt();
    JsonNode pdb = one("PodDisruptionBudget", "demandfold");
    assertThat(pdb.at("/spec/selector/matchLabels"))
        .isEqualTo(sts.at("/spec/template/metadata/labels"));
    assertThat(pdb.at("/spec/maxUnavailable").asInt()).isEqualTo(1).isLessThan(replicas);
    int standbys =
        Integer.parseInt(settings().kafkaSettings().get("num.standby.replicas").toString());
    assertThat(standbys).isBetween(1, replicas - 1);
  }

  @Test
  void shouldScrapeThePodsAsJobDemandfoldAndCarryTheAlertRules() throws Exception {
    JsonNode monitor = one("ServiceMonitor", "demandfold");
    JsonNode selector = monitor.at("/spec/selector/matchLabels");
    List<JsonNode> selected =
        all("Service").stream().filter(s -> contains(s.at("/metadata/labels"), selector)).toList();
    assertThat(selected).as("one Service: else each pod is scraped twice").hasSize(1);
    JsonNode service = selected.get(0);
    // the job label is the Service's name unless jobLabel says otherwise: the alerts select it
    assertThat(monitor.at("/spec/jobLabel").isMissingNode()).isTrue();
    assertThat(service.at("/metadata/name").asText()).isEqualTo("demandfold");
    assertThat(monitor.at("/spec/endpoints/0/port").asText())
        .isEqualTo(service.at("/spec/ports/0/name").asText());
    assertThat(monitor.at("/spec/endpoints/0/path").asText()).isEqualTo("/metrics");

    JsonNode alerts = new YAMLMapper().readTree(PrometheusRulesTest.RULES.toFile());
    assertThat(one("PrometheusRule", "demandfold").at("/spec/groups"))
        .as("the PrometheusRule's groups are alerts.yml's: copy them over after an edit")
        .isEqualTo(alerts.get("groups"));
  }

  private static boolean contains(JsonNode labels, JsonNode wanted) {
    List<String> missing = new ArrayList<>();
    wanted
        .fieldNames()
        .forEachRemaining(
            k -> {
              if (!wanted.get(k).equals(labels.get(k))) {
                missing.add(k);
              }
            });
    return missing.isEmpty();
  }

  @Test
  void shouldRunTheConnectorsOfConnectorsJsonOnTheKafkaConnect() throws Exception {
    JsonNode connect = one("KafkaConnect", "demandfold-connect");
    assertThat(connect.at("/metadata/annotations/strimzi.io~1use-connector-resources").asText())
        .isEqualTo("true");
    Map<String, String> env = environment();
    assertThat(connect.at("/spec/bootstrapServers").asText())
        .isEqualTo(env.get("DEMANDFOLD_KAFKA_BOOTSTRAP_SERVERS"));
    JsonNode artifact = connect.at("/spec/build/plugins/0/artifacts/0");
    assertThat(artifact.get("type").asText()).isEqualTo("zip");
    Matcher url =
        Pattern.compile(
                "https://.+/io/demandfold/demandfold-connect/([^/]+)/demandfold-connect-([^/]+)-plugin\\.zip")
            .matcher(artifact.get("url").asText());
    assertThat(url.matches())
        .as("a Maven repository's path of the plugin zip: %s", artifact)
        .isTrue();
    assertThat(url.group(2)).isEqualTo(url.group(1));

    ObjectMapper json = new ObjectMapper();
    Map<String, JsonNode> shipped = new TreeMap<>();
    try (Stream<Path> files = Files.list(Path.of("connectors"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".json")).toList()) {
        JsonNode c = json.readTree(f.toFile());
        shipped.put(c.get("name").asText(), c.get("config"));
      }
    }
    Map<String, JsonNode> resources = new TreeMap<>();
    all("KafkaConnector").forEach(k -> resources.put(k.at("/metadata/name").asText(), k));
    assertThat(resources.keySet()).containsExactlyElementsOf(shipped.keySet());
    String etcd = env.get("DEMANDFOLD_ETCD_ENDPOINTS");
    shipped.forEach(
        (name, config) -> {
          JsonNode k = resources.get(name);
          assertThat(k.at("/metadata/labels/strimzi.io~1cluster").asText())
              .isEqualTo(connect.at("/metadata/name").asText());
          ObjectNode expected = config.deepCopy();
          assertThat(k.at("/spec/class").asText())
              .isEqualTo(expected.remove("connector.class").asText());
          assertThat(k.at("/spec/tasksMax").asInt())
              .isEqualTo(expected.remove("tasks.max").asInt());
          // the connectors reach the etcd the service mirrors into, not connectors/'s loopback
          expected.put("etcd.endpoints", etcd);
          assertThat(k.at("/spec/config")).as(name).isEqualTo(expected);
        });
  }
}
