package io.demandfold.it;

import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Keys;
import io.demandfold.core.Source;
import io.demandfold.core.TableRecord;
import io.demandfold.core.codec.EventDecoder;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.MirrorMetrics;
import io.demandfold.mirror.MirrorResult;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The artifacts as a user gets them: {@code mvn deploy -DaltDeploymentRepository=...} of a copy of
 * this repository into a file repository, then two separate consumer projects built against that
 * repository alone (and the libraries of this machine's Maven repository, served as a remote one):
 * a producer that depends on {@code demandfold-client} only, and a scheduler's reader that depends
 * on {@code demandfold-view} only. Each compiles and runs its example of {@code examples/client}
 * against the real broker and etcd, and resolves exactly the versions this build tested.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class PublishedArtifactsIT {
  private static final Path WORK = Path.of("src/it/target/published").toAbsolutePath();
  private static final Path REPO = WORK.resolve("repository");
  private static final String GROUP_PATH = "io/demandfold/";
  private static final List<String> PUBLISHED =
      List.of("core", "client", "mirror", "view", "service", "connect");
  private static final List<String> ETCD_LIBRARIES =
      List.of("jetcd-", "grpc-", "netty-", "vertx-", "concurrency-limits");

  private static Consumer producer;
  private static Consumer reader;

  @BeforeAll
  static void deployAndBuildConsumers() throws Exception {
    deleteRecursively(WORK);
    Path copy = WORK.resolve("source");
    copyTracked(Path.of(""), copy);
    maven(
        copy,
        "deploy",
        "-DskipTests",
        "-Dspotless.check.skip=true",
        "-Dmaven.install.skip=true",
        "-DaltDeploymentRepository=it::" + REPO.toUri(),
        "-pl",
        "!src/dev,!src/it");
    producer = Consumer.build("producer", "demandfold-client", "ProducerExample");
    reader = Consumer.build("reader", "demandfold-view", "ViewExample");
  }

  @Test
  void shouldPublishEveryArtifactWithItsSourcesJavadocAndPom() throws Exception {
    for (String a : PUBLISHED) {
      Path dir = REPO.resolve(GROUP_PATH + "demandfold-" + a + "/" + Build.VERSION);
      List<String> files = list(dir);
      for (String suffix : List.of(".jar", "-sources.jar", "-javadoc.jar", ".pom")) {
        assertThat(files)
            .as("demandfold-%s in the file repository", a)
            .anyMatch(f -> f.startsWith("demandfold-" + a + "-") && f.endsWith(suffix));
      }
      Document pom = newestPom(dir);
      for (String tag : List.of("licenses", "scm", "url", "developers", "description")) {
        assertThat(pom.getElementsByTagName(tag).getLength())
            .as("<%s> in the pom of demandfold-%s", tag, a)
            .isPositive();
      }
      assertThat(text(pom, "licenses")).contains("Apache-2.0");
      assertThat(pom.getElementsByTagName("parent").getLength())
          .as("demandfold-%s's pom stands alone (no parent to resolve)", a)
          .isZero();
      for (Map.Entry<String, String> d : dependencies(pom).entrySet()) {
        assertThat(d.getValue()).as("version of %s in demandfold-%s", d.getKey(), a).isNotBlank();
      }
    }
    assertThat(list(REPO.resolve(GROUP_PATH + "demandfold-connect/" + Build.VERSION)))
        .as("the Connect plugin, classifier plugin")
        .anyMatch(f -> f.endsWith("-plugin.zip"));
    assertThat(list(REPO.resolve(GROUP_PATH + "demandfold-bom/" + Build.VERSION)))
        .anyMatch(f -> f.endsWith(".pom"));
    assertThat(Files.exists(REPO.resolve(GROUP_PATH + "demandfold-dev")))
        .as("the development module is not published")
        .isFalse();
  }

  @Test
  void shouldResolveExactlyTheTestedVersionsUnderMavenAndGradlesRule() throws Exception {
    for (Consumer c : List.of(producer, reader)) {
      String module = c.artifact.substring("demandfold-".length());
      Map<String, String> tested =
          Dependencies.parse(
              Files.readString(Path.of("src", module, "target", "runtime-dependencies.txt")));
      tested.put("io.demandfold:" + c.artifact, Build.VERSION);
      assertThat(c.resolved)
          .as("what Maven resolves for a project importing demandfold-bom, using %s", c.artifact)
          .isEqualTo(tested);
      // Gradle takes the highest version asked for anywhere in the graph unless a platform is
      // enforced: every version asked for above the tested one must be of an artifact the BOM
      // manages, so that enforcedPlatform(demandfold-bom) resolves the tested versions
      assertThat(c.higherRequests)
          .as("versions asked for in %s's graph above the tested ones, not managed", c.artifact)
          .isEmpty();
      System.out.printf(
          "%s: asked for above the tested version, held by the BOM: %s%n",
          c.artifact, c.higherManaged);
    }
  }

  @Test
  void shouldPublishWithTheClientAloneWithoutAnyEtcdLibrary(Services services) throws Exception {
    assertThat(producer.resolved.keySet())
        .as("the producer's class path")
        .contains("io.demandfold:demandfold-client", "org.apache.kafka:kafka-clients")
        .noneMatch(k -> ETCD_LIBRARIES.stream().anyMatch(l -> k.split(":")[1].startsWith(l)))
        .noneMatch(k -> k.contains("kafka-streams") || k.contains("logback"));
    String topic = "published-" + UUID.randomUUID();
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, services.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    Process p = producer.start(services.bootstrapServers(), topic, "orders");
    String output = await(p, producer.log);
    assertThat(output).contains("sent=5 lost=0");
    List<DemandEvent> events = read(services.bootstrapServers(), topic, 5);
    assertThat(events).hasSize(5).allMatch(e -> e.target().equals("orders"));
    assertThat(events.stream().map(e -> e.record().source()))
        .containsExactly(Source.WRITER, Source.WRITER, Source.WRITER, Source.EXECUTOR, Source.SCAN);
  }

  @Test
  void shouldReadDemandWithTheViewFromItsOwnProject(Services services) throws Exception {
    assertThat(reader.resolved.keySet())
        .contains("io.demandfold:demandfold-view", "io.etcd:jetcd-core")
        .noneMatch(k -> k.contains("kafka-streams") || k.contains("logback"));
    EtcdLayout layout = new EtcdLayout(services.uniqueName("/published-view"));
    EtcdMirror mirror =
        EtcdMirror.builder()
            .kv(services.etcdClient().getKVClient())
            .layout(layout)
            .maxRetries(5)
            .timeout(Duration.ofSeconds(10))
            .maxRequestBytes(1_572_864)
            .metrics(MirrorMetrics.detached())
            .build();
    long now = System.currentTimeMillis();
    mirrorTable(mirror, "orders", DemandViewIT.table(2, 5, now)); // 10 pending: due
    mirrorTable(mirror, "logs", DemandViewIT.table(1, 300, now)); // critical
    Process p = reader.start(services.etcdEndpoint(), layout.prefix(), "60");
    String output;
    try {
      Harness.await(
          "the reader's listing of its snapshot",
          () -> read(reader.log),
          s -> s.contains("waiting for a change") || !p.isAlive(),
          Duration.ofSeconds(90));
      mirrorTable(mirror, "orders", DemandViewIT.table(2, 200, now)); // now critical
      output = await(p, reader.log);
    } finally {
      p.destroyForcibly();
    }
    List<String> lines = output.lines().toList();
    int snapshot =
        IntStream.range(0, lines.size())
            .filter(i -> lines.get(i).startsWith("snapshot at"))
            .findFirst()
            .orElse(-1);
    int waiting = lines.indexOf("waiting for a change");
    assertThat(snapshot).as("output:%n%s", output).isNotNegative().isLessThan(waiting);
    assertThat(lines.subList(snapshot + 1, waiting))
        .containsExactly(
            "  critical logs: 300 generations, 314572800 bytes pending",
            "  due orders: 10 generations, 10485760 bytes pending");
    assertThat(lines.subList(waiting + 1, lines.size()))
        .as("output:%n%s", output)
        .singleElement(as(STRING))
        .matches(
            "change of orders at revision \\d+: due 10 generations -> critical 400 generations");
  }

  /** A consumer project built against the file repository: its resolution and its class path. */
  private static final class Consumer {
    final String artifact;
    final String mainClass;
    final Path dir;
    final Path log;
    final Map<String, String> resolved = new TreeMap<>();
    final List<String> higherRequests = new ArrayList<>();
    final Set<String> higherManaged = new java.util.TreeSet<>();
    String classPath;

    private Consumer(String name, String artifact, String mainClass) {
      this.artifact = artifact;
      this.mainClass = mainClass;
      this.dir = WORK.resolve(name);
      this.log = dir.resolve("output.txt");
    }

    /**
     * Writes a project that depends on {@code artifact} alone, with {@code
     * examples/client/MAIN.java} as its code, and builds it with a local repository of its own:
     * demandfold's artifacts can only come from the file repository.
     */
    static Consumer build(String name, String artifact, String mainClass) throws Exception {
      Consumer c = new Consumer(name, artifact, mainClass);
      Path src = c.dir.resolve("src/main/java");
      Files.createDirectories(src);
      Files.copy(Path.of("examples/client", mainClass + ".java"), src.resolve(mainClass + ".java"));
      Files.writeString(c.dir.resolve("pom.xml"), pom(name, artifact));
      Path settings = c.dir.resolve("settings.xml");
      Files.writeString(settings, settings(c.dir.resolve("local-repository")));
      Path list = c.dir.resolve("dependencies.txt");
      Path tree = c.dir.resolve("tree.txt");
      Path cp = c.dir.resolve("classpath.txt");
      maven(
          c.dir,
          "-s",
          settings.toString(),
          "compile",
          "dependency:list",
          "-DoutputFile=" + list,
          "dependency:build-classpath",
          "-Dmdep.outputFile=" + cp);
      maven(
          c.dir, "-s", settings.toString(), "dependency:tree", "-Dverbose", "-DoutputFile=" + tree);
      c.resolved.putAll(Dependencies.parse(Files.readString(list)));
      String verbose = Files.readString(tree);
      assertThat(verbose)
          .as("the verbose tree of %s names what it left out", name)
          .contains("omitted for");
      // "(g:a:jar:4.1.110.Final:runtime - omitted for conflict with 4.1.118.Final)" and
      // "g:a:jar:4.1.118.Final:runtime (version managed from 4.1.110.Final)": what a pom asked for
      Matcher asked =
          Pattern.compile(
                  "([\\w.\\-]+:[\\w.\\-]+):[\\w\\-]+:(?:[\\w.\\-]+:)?([\\w.\\-]+):\\w+"
                      + "[^\\n]*?(omitted for conflict with|version managed from) ([\\w.\\-]+)")
              .matcher(verbose);
      while (asked.find()) {
        boolean omitted = asked.group(3).startsWith("omitted");
        String wanted = omitted ? asked.group(2) : asked.group(4);
        String kept = omitted ? asked.group(4) : asked.group(2);
        if (Versions.compare(wanted, kept) > 0) {
          // managed by the BOM: Gradle's enforcedPlatform keeps the tested version, a plain
          // platform() would take the higher one; not managed: any Gradle build would
          (omitted ? c.higherRequests : c.higherManaged)
              .add(asked.group(1) + " asked " + wanted + " > " + kept);
        }
      }
      assertThat(c.resolved).as("dependencies of %s", name).isNotEmpty();
      c.classPath =
          c.dir.resolve("target/classes") + File.pathSeparator + Files.readString(cp).strip();
      return c;
    }

    Process start(String... args) throws IOException {
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.add("-cp");
      command.add(classPath);
      command.add(mainClass);
      command.addAll(List.of(args));
      return new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(log.toFile())
          .start();
    }
  }

  private static String pom(String name, String artifact) {
    return """
        <?xml version="1.0" encoding="UTF-8"?>
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>example</groupId>
          <artifactId>%1$s</artifactId>
          <version>1</version>
          <properties>
            <maven.compiler.release>17</maven.compiler.release>
            <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
          </properties>
          <dependencyManagement>
            <dependencies>
              <dependency>
                <groupId>io.demandfold</groupId>
                <artifactId>demandfold-bom</artifactId>
                <version>%3$s</version>
                <type>pom</type>
                <scope>import</scope>
              </dependency>
            </dependencies>
          </dependencyManagement>
          <dependencies>
            <dependency>
              <groupId>io.demandfold</groupId>
              <artifactId>%2$s</artifactId>
            </dependency>
          </dependencies>
          <build>
            <plugins>
              <plugin>
                <artifactId>maven-resources-plugin</artifactId>
                <version>3.3.1</version>
              </plugin>
              <plugin>
                <artifactId>maven-compiler-plugin</artifactId>
                <version>3.13.0</version>
              </plugin>
              <plugin>
                <artifactId>maven-dependency-plugin</artifactId>
                <version>3.8.1</version>
              </plugin>
            </plugins>
          </build>
        </project>
        """
        .formatted(name, artifact, Build.VERSION);
  }

  /**
   * A local repository of the consumer's own; demandfold's artifacts from the file repository,
   * every other artifact from this machine's local repository served as a remote one (no network,
   * and no demandfold artifact an earlier build installed there: a local repository's snapshots
   * have no remote metadata).
   */
  private static String settings(Path localRepository) {
    Path m2 =
        Path.of(
            System.getProperty(
                "maven.repo.local",
                Path.of(System.getProperty("user.home"), ".m2", "repository").toString()));
    return """
        <settings>
          <localRepository>%s</localRepository>
          <mirrors>
            <mirror>
              <id>machine</id>
              <mirrorOf>*,!demandfold-it</mirrorOf>
              <url>%s</url>
            </mirror>
          </mirrors>
          <profiles>
            <profile>
              <id>it</id>
              <repositories>
                <repository>
                  <id>demandfold-it</id>
                  <url>%s</url>
                  <snapshots><enabled>true</enabled></snapshots>
                </repository>
              </repositories>
            </profile>
          </profiles>
          <activeProfiles><activeProfile>it</activeProfile></activeProfiles>
        </settings>
        """
        .formatted(localRepository, m2.toUri(), REPO.toUri());
  }

  /** Runs Maven in {@code dir}; fails with its output when it fails. */
  private static void maven(Path dir, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("mvn", "-B", "-Dstyle.color=never"));
    command.addAll(List.of(args));
    Path out = Files.createTempFile(WORK, "mvn", ".log");
    Process p =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    boolean ended = p.waitFor(12, TimeUnit.MINUTES);
    if (!ended) {
      p.destroyForcibly();
    }
    String output = Files.readString(out);
    assertThat(ended && p.exitValue() == 0)
        .as("%s in %s:%n%s", command, dir, tail(output, 80))
        .isTrue();
  }

  private static String tail(String s, int lines) {
    List<String> all = s.lines().toList();
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }

  /** Copies the repository's own files (no build output, no .git). */
  private static void copyTracked(Path from, Path to) throws IOException {
    Set<String> skipped = Set.of("target", ".git", "node_modules", ".jqwik-database");
    try (Stream<Path> files = Files.walk(from.toAbsolutePath())) {
      Path root = from.toAbsolutePath();
      for (Path f : files.toList()) {
        Path rel = root.relativize(f);
        boolean skip = false;
        for (Path part : rel) {
          skip |= skipped.contains(part.toString());
        }
        if (skip || rel.toString().isEmpty()) {
          continue;
        }
        Path dst = to.resolve(rel.toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(dst);
        } else if (Files.isRegularFile(f)) {
          Files.createDirectories(dst.getParent());
          Files.copy(f, dst);
        }
      }
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private static List<String> list(Path dir) throws IOException {
    assertThat(dir).as("%s in the file repository", dir).isDirectory();
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  /** The pom of the newest snapshot deployed in {@code dir}. */
  private static Document newestPom(Path dir) throws Exception {
    Path pom =
        list(dir).stream()
            .filter(f -> f.endsWith(".pom"))
            .max(String::compareTo)
            .map(dir::resolve)
            .orElseThrow();
    return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
  }

  /** The pom's dependencies: groupId:artifactId to version (test and provided ones left out). */
  private static Map<String, String> dependencies(Document pom) {
    Map<String, String> out = new TreeMap<>();
    Element deps = (Element) pom.getDocumentElement().getElementsByTagName("dependencies").item(0);
    if (deps == null) {
      return out;
    }
    NodeList list = deps.getChildNodes();
    for (int i = 0; i < list.getLength(); i++) {
      if (list.item(i) instanceof Element d && d.getTagName().equals("dependency")) {
        String scope = child(d, "scope");
        if ("test".equals(scope)
            || "provided".equals(scope)
            || "true".equals(child(d, "optional"))) {
          continue;
        }
        out.put(child(d, "groupId") + ":" + child(d, "artifactId"), child(d, "version"));
      }
    }
    return out;
  }

  private static String child(Element e, String tag) {
    NodeList n = e.getElementsByTagName(tag);
    for (int i = 0; i < n.getLength(); i++) {
      if (n.item(i).getParentNode() == e) {
        return n.item(i).getTextContent().strip();
      }
    }
    return null;
  }

  private static String text(Document d, String tag) {
    return d.getElementsByTagName(tag).item(0).getTextContent();
  }

  private static void mirrorTable(EtcdMirror mirror, String target, TableRecord r)
      throws Exception {
    assertThat(mirror.mirrorTable(Keys.hex(target), r).get(30, TimeUnit.SECONDS).result())
        .as("table record of %s", target)
        .isEqualTo(MirrorResult.WRITTEN);
  }

  private static String read(Path log) {
    try {
      return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String await(Process p, Path log) throws InterruptedException {
    try {
      assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("the example ended").isTrue();
    } finally {
      p.destroyForcibly();
    }
    String output = read(log);
    assertThat(p.exitValue()).as("exit; output:%n%s", output).isZero();
    return output;
  }

  private static List<DemandEvent> read(String bootstrap, String topic, int count) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.GROUP_ID_CONFIG, "published-" + UUID.randomUUID());
    List<DemandEvent> events = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      for (int polls = 0; polls < 120 && events.size() < count; polls++) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          events.add(EventDecoder.decode(r.value()));
        }
      }
    }
    return events;
  }

  /**
   * The lines of {@code mvn dependency:list}: groupId:artifactId to version; optional ones left
   * out.
   */
  static final class Dependencies {
    private static final Set<String> SCOPES =
        Set.of("compile", "runtime", "provided", "test", "system");

    private Dependencies() {}

    static Map<String, String> parse(String list) {
      Map<String, String> out = new TreeMap<>();
      for (String line : list.lines().map(String::strip).toList()) {
        if (line.contains("(optional)") || !line.matches("[\\w.\\-]+:[\\w.\\-]+:.*")) {
          continue;
        }
        String[] t = line.split(" ")[0].split(":");
        int n = t.length - (SCOPES.contains(t[t.length - 1]) ? 1 : 0);
        out.put(t[0] + ":" + t[1], t[n - 1]);
      }
      return out;
    }
  }

  /** Maven-like version order for the versions of this graph (numbers as numbers). */
  static final class Versions {
    private Versions() {}

    static int compare(String a, String b) {
      String[] x = a.split("[.\\-]");
      String[] y = b.split("[.\\-]");
      for (int i = 0; i < Math.max(x.length, y.length); i++) {
        String p = i < x.length ? x[i] : "0";
        String q = i < y.length ? y[i] : "0";
        int c =
            p.matches("\\d+") && q.matches("\\d+")
                ? new java.math.BigInteger(p).compareTo(new java.math.BigInteger(q))
                : p.compareToIgnoreCase(q);
        if (c != 0) {
          return c;
        }
      }
      return 0;
    }
  }
}
