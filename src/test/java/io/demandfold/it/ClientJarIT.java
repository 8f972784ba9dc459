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
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.spi.ToolProvider;
import java.util.stream.IntStream;
import javax.tools.JavaCompiler;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The client jar (target/demandfold-client-VERSION.jar) with only the class path its own pom
 * resolves (target/client-classpath.txt): what it holds, that every class of it links, and that the
 * examples compiled and run with nothing else work: a producer against the real broker, and a view
 * reader (examples/client/ViewExample.java) that lists the due tables of a real etcd and hears a
 * change of one.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ClientJarIT {
  private static final Path TARGET = Path.of("target");
  private static final List<String> ALLOWED =
      List.of(
          "io/demandfold/client/",
          "io/demandfold/core/",
          "io/demandfold/avro/",
          "io/demandfold/mirror/EtcdLayout",
          "io/demandfold/mirror/EtcdSettings",
          "io/demandfold/mirror/PrefixScan",
          "io/demandfold/mirror/UnaryDeadline");
  private static final List<String> FORBIDDEN_JARS =
      List.of("kafka-streams", "kafka_2.13", "connect-", "logback", "picocli");

  @Test
  void shouldHoldOnlyTheClientPackagesAndNoServiceLibrary() throws IOException {
    List<String> outside = new ArrayList<>();
    try (JarFile jar = new JarFile(clientJar().toFile())) {
      for (JarEntry e : Collections.list(jar.entries())) {
        String name = e.getName();
        if (name.endsWith(".class") && ALLOWED.stream().noneMatch(name::startsWith)) {
          outside.add(name);
        }
      }
      assertThat(jar.getEntry("io/demandfold/client/DemandPublisher.class")).isNotNull();
      assertThat(jar.getEntry("schemas/history/DemandEvent-1.avsc")).isNotNull();
    }
    assertThat(outside).as("classes outside the client packages").isEmpty();
    List<String> jars = dependencies().stream().map(p -> p.getFileName().toString()).toList();
    assertThat(jars).anyMatch(j -> j.startsWith("kafka-clients-"));
    assertThat(jars).anyMatch(j -> j.startsWith("jetcd-core-"));
    for (String forbidden : FORBIDDEN_JARS) {
      assertThat(jars).as("class path of the client").noneMatch(j -> j.startsWith(forbidden));
    }
  }

  @Test
  void shouldLinkEveryClassWithOnlyItsDeclaredDependencies() {
    ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
    java.io.StringWriter out = new java.io.StringWriter();
    java.io.PrintWriter pw = new java.io.PrintWriter(out);
    int rc =
        jdeps.run(
            pw,
            pw,
            "--multi-release",
            "17",
            "--class-path",
            classPathOf(dependencies()),
            "--missing-deps",
            clientJar().toString());
    pw.flush();
    assertThat(rc).as("jdeps: %s", out).isZero();
    assertThat(out.toString().lines().filter(l -> l.contains("not found")))
        .as("missing dependencies of the client jar")
        .isEmpty();
  }

  @Test
  void shouldRunTheProducerExampleWithOnlyTheClientClassPath(Services services) throws Exception {
    String topic = "client-jar-" + UUID.randomUUID();
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, services.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    String output = runExample("ProducerExample", services.bootstrapServers(), topic, "orders");
    assertThat(output).contains("sent=5 lost=0");

    List<DemandEvent> events = read(services.bootstrapServers(), topic, 5);
    assertThat(events).hasSize(5).allMatch(e -> e.target().equals("orders"));
    assertThat(events.stream().map(e -> e.record().source()))
        .containsExactly(Source.WRITER, Source.WRITER, Source.WRITER, Source.EXECUTOR, Source.SCAN);
  }

  @Test
  void shouldRunTheViewExampleWithOnlyTheClientClassPath(Services services) throws Exception {
    EtcdLayout layout = new EtcdLayout(services.uniqueName("/client-view"));
    EtcdMirror mirror =
        EtcdMirror.builder()
            .kv(services.etcdClient().getKVClient())
            .layout(layout)
            .maxRetries(5)
            .timeout(Duration.ofSeconds(10))
            .maxRequestBytes(1_572_864)
            .metrics(MirrorMetrics.detached())
            .build();
    long now = System.currentTimeMillis(); // flushed just now: no table is due by its age
    mirrorTable(mirror, "orders", DemandViewIT.table(2, 5, now)); // 10 pending: due
    mirrorTable(mirror, "logs", DemandViewIT.table(1, 300, now)); // critical
    mirrorTable(mirror, "quiet", DemandViewIT.table(1, 2, now)); // below every threshold

    Example example = startExample("ViewExample", services.etcdEndpoint(), layout.prefix(), "60");
    String output;
    try {
      Harness.await(
          "the example's listing of its snapshot",
          example::output,
          s -> s.contains("waiting for a change") || !example.process().isAlive(),
          Duration.ofSeconds(90));
      mirrorTable(mirror, "quiet", DemandViewIT.table(1, 400, now)); // now critical
      output = example.await();
    } finally {
      example.process().destroyForcibly();
    }

    List<String> lines = output.lines().toList();
    int snapshot =
        IntStream.range(0, lines.size())
            .filter(i -> lines.get(i).startsWith("snapshot at"))
            .findFirst()
            .orElse(-1);
    int waiting = lines.indexOf("waiting for a change");
    assertThat(snapshot).as("output:%n%s", output).isNotNegative().isLessThan(waiting);
    assertThat(lines.get(snapshot)).matches("snapshot at revision \\d+: 3 tables");
    assertThat(lines.subList(snapshot + 1, waiting))
        .as("the due tables, most urgent first; the one below every threshold left out")
        .containsExactly(
            "  critical logs: 300 generations, 314572800 bytes pending",
            "  due orders: 10 generations, 10485760 bytes pending");
    assertThat(lines.subList(waiting + 1, lines.size()))
        .as("output:%n%s", output)
        .singleElement(as(STRING))
        .matches(
            "change of quiet at revision \\d+: pending 2 generations -> critical 400 generations");
  }

  private static void mirrorTable(EtcdMirror mirror, String target, TableRecord r)
      throws Exception {
    assertThat(mirror.mirrorTable(Keys.hex(target), r).get(30, TimeUnit.SECONDS).result())
        .as("table record of %s", target)
        .isEqualTo(MirrorResult.WRITTEN);
  }

  /** A child JVM running an example, and the file it prints to. */
  private record Example(String name, Process process, Path log) {
    String output() {
      try {
        return Files.readString(log, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** Waits for the example to end; returns what it printed; fails when it exits non-zero. */
    String await() throws InterruptedException {
      try {
        assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("%s ended", name).isTrue();
      } finally {
        process.destroyForcibly();
      }
      String output = output();
      assertThat(process.exitValue()).as("%s exit; output:%n%s", name, output).isZero();
      return output;
    }
  }

  /**
   * Compiles examples/client/NAME.java against the client jar and its dependencies only, runs it in
   * a child JVM on that class path and returns what it printed; fails when it exits non-zero.
   */
  private static String runExample(String name, String... args) throws Exception {
    return startExample(name, args).await();
  }

  /** {@link #runExample} without the wait: the example runs while the test acts on its output. */
  private static Example startExample(String name, String... args) throws Exception {
    Path source = Path.of("examples", "client", name + ".java");
    Path classes = Files.createTempDirectory(TARGET, "client-example");
    List<Path> cp = new ArrayList<>();
    cp.add(clientJar());
    cp.addAll(dependencies());
    JavaCompiler javac = javax.tools.ToolProvider.getSystemJavaCompiler();
    int rc =
        javac.run(
            null,
            null,
            null,
            "--release",
            "17",
            "-Xlint:all",
            "-Werror",
            "-cp",
            classPathOf(cp),
            "-d",
            classes.toString(),
            source.toString());
    assertThat(rc).as("javac %s", source).isZero();
    cp.add(0, classes);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(classPathOf(cp));
    command.add(name);
    command.addAll(List.of(args));
    Path log = classes.resolve("output.txt");
    Process p =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new Example(name, p, log);
  }

  private static List<DemandEvent> read(String bootstrap, String topic, int count) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.GROUP_ID_CONFIG, "client-jar-" + UUID.randomUUID());
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

  private static Path clientJar() {
    try (var files = Files.list(TARGET)) {
      List<Path> jars =
          files
              .filter(p -> p.getFileName().toString().matches("demandfold-client-.*\\.jar"))
              .toList();
      assertThat(jars).as("the client jar in target/ (run mvn package)").hasSize(1);
      return jars.get(0);
    } catch (IOException e) {
      throw new IllegalStateException("cannot list target/", e);
    }
  }

  private static List<Path> dependencies() {
    try {
      String cp = Files.readString(TARGET.resolve("client-classpath.txt")).strip();
      return List.of(cp.split(File.pathSeparator)).stream().map(Path::of).toList();
    } catch (IOException e) {
      throw new IllegalStateException("target/client-classpath.txt (run mvn package)", e);
    }
  }

  private static String classPathOf(List<Path> paths) {
    return String.join(File.pathSeparator, paths.stream().map(Path::toString).toList());
  }
}
