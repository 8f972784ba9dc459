package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.app.DemandfoldService;
import io.demandfold.client.DemandPublisher;
import io.demandfold.client.DemandPublisher.Result;
import io.demandfold.config.DemandfoldConfig;
import io.demandfold.config.SettingsLoader;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Events;
import io.demandfold.core.Fold;
import io.demandfold.core.Source;
import io.demandfold.local.EtcdServer;
import io.demandfold.local.KafkaBroker;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.mirror.EtcdSettings;
import io.demandfold.ops.Audit;
import io.demandfold.sim.FleetModel;
import io.etcd.jetcd.Client;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker that only speaks SASL/PLAIN: the pass-through {@code kafka.*} settings reach every Kafka
 * client demandfold makes (the streams app with its admin, consumers and producers, the publisher,
 * {@code publish} and {@code audit}), and no password is ever logged.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class KafkaSaslIT {
  private static final String ADMIN_PASSWORD = "kafkaAdm-5Hq!z";
  private static final String PASSWORD = "kafkaDf-8Vw!p1";
  private static final Duration PATIENCE = Duration.ofSeconds(90);

  private static KafkaBroker broker;
  private static EtcdServer etcd;

  static String jaas(String user, String password) {
    return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
        + user
        + "\" password=\""
        + password
        + "\";";
  }

  @BeforeAll
  static void startServices() {
    etcd = EtcdServer.builder().build().start();
    String host = "127.0.0.1";
    broker =
        KafkaBroker.builder()
            .serverProperty(
                "listeners",
                "SASL_PLAINTEXT://"
                    + host
                    + ":${port},CONTROLLER://"
                    + host
                    + ":${controller.port}")
            .serverProperty("advertised.listeners", "SASL_PLAINTEXT://" + host + ":${port}")
            .serverProperty(
                "listener.security.protocol.map",
                "SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT")
            .serverProperty("inter.broker.listener.name", "SASL_PLAINTEXT")
            .serverProperty("sasl.enabled.mechanisms", "PLAIN")
            .serverProperty("sasl.mechanism.inter.broker.protocol", "PLAIN")
            .serverProperty(
                "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required"
                    + " username=\"admin\" password=\""
                    + ADMIN_PASSWORD
                    + "\" user_admin=\""
                    + ADMIN_PASSWORD
                    + "\" user_demandfold=\""
                    + PASSWORD
                    + "\";")
            .clientProperties(
                Map.of(
                    "security.protocol", "SASL_PLAINTEXT",
                    "sasl.mechanism", "PLAIN",
                    "sasl.jaas.config", jaas("admin", ADMIN_PASSWORD)))
            .build();
    broker.start();
  }

  @AfterAll
  static void stopServices() {
    try {
      if (broker != null) {
        broker.close();
      }
    } finally {
      if (etcd != null) {
        etcd.close();
      }
    }
  }

  /** The client settings of user demandfold, as the {@code kafka.*} pass-through takes them. */
  private static Map<String, String> sasl(String password) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("kafka.security.protocol", "SASL_PLAINTEXT");
    m.put("kafka.sasl.mechanism", "PLAIN");
    m.put("kafka.sasl.jaas.config", jaas("demandfold", password));
    return m;
  }

  private static Map<String, String> settings(String name, Path state) {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("kafka.bootstrap.servers", broker.bootstrapServers());
    s.put("etcd.endpoints", etcd.endpoint());
    s.put("etcd.prefix", "/" + name);
    s.put("application.id", name);
    s.put("topics.events", name + ".events");
    s.put("topics.dlq", name + ".dlq");
    s.put("topics.shard.records", name + ".shard-records");
    s.put("topics.table.demand", name + ".table-demand");
    s.put("kafka.state.dir", state.toString());
    s.put("http.port", "0");
    return s;
  }

  @Test
  void shouldFoldPublishAndAuditThroughASaslPlainBroker(@TempDir Path dir) throws Exception {
    String name = "sasl-" + Long.toHexString(System.nanoTime());
    Map<String, String> settings = settings(name, Files.createDirectories(dir.resolve("state")));
    settings.putAll(sasl(PASSWORD));
    try (LogCapture logs = new LogCapture()) {
      SettingsLoader loader = new SettingsLoader();
      settings.forEach((k, v) -> loader.flag(k, v, "--set " + k));
      DemandfoldConfig config = loader.load();
      List<DemandEvent> events = new ArrayList<>();
      try (DemandfoldService s = DemandfoldService.start(config, new SimpleMeterRegistry());
          Client etcdClient = EtcdSettings.of(etcd.endpoint()).connect()) {
        // the library publisher, with the same settings as producer properties
        Map<String, Object> producer = new LinkedHashMap<>();
        sasl(PASSWORD).forEach((k, v) -> producer.put(k.substring("kafka.".length()), v));
        FleetModel fleet = new FleetModel(47, 5, 4);
        try (DemandPublisher p =
            DemandPublisher.builder(broker.bootstrapServers())
                .topic(name + ".events")
                .kafkaProperties(producer)
                .build()) {
          for (int i = 0; i < 3_000; i++) {
            DemandEvent e = fleet.next(1_764_400_000_000L + i * 10L);
            events.add(e);
            assertThat(p.publish(e)).isTrue();
          }
          assertThat(p.flush(Duration.ofSeconds(60))).isTrue();
          long sent = 0;
          for (Source src : Source.values()) {
            sent += p.count(src, Result.SENT);
          }
          assertThat(sent).as("acknowledged by the SASL broker").isEqualTo(events.size());
        }

        // the CLI publisher, with the settings from DEMANDFOLD_* variables, in a child JVM
        DemandEvent cli =
            new DemandEvent("from-the-cli", Events.writer("s1", 7, 1, 1_764_400_007_000L));
        events.add(cli);
        Map<String, String> env = new LinkedHashMap<>();
        env.put("DEMANDFOLD_KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
        env.put("DEMANDFOLD_TOPICS_EVENTS", name + ".events");
        sasl(PASSWORD)
            .forEach((k, v) -> env.put("DEMANDFOLD_" + k.toUpperCase().replace('.', '_'), v));
        ProcessBuilder publish =
            new ProcessBuilder(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-jar",
                    ChildProcessor.JAR.toString(),
                    "publish",
                    "--target",
                    "from-the-cli",
                    "--shard",
                    "s1",
                    "--sealed-through",
                    "7",
                    "--flushed-at-ms",
                    "1764400007000")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("publish.log").toFile());
        publish.environment().keySet().removeIf(k -> k.startsWith("DEMANDFOLD_"));
        publish.environment().putAll(env);
        Process started = publish.start();
        assertThat(started.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        String published = Files.readString(dir.resolve("publish.log"));
        assertThat(started.exitValue()).as(published).isZero();
        assertThat(published).contains("published " + cli.key() + " to " + name + ".events-");
        assertThat(published).doesNotContain(PASSWORD);

        Fold expected = Harness.fold(events);
        Audit.Report report =
            Faults.awaitIdentical(
                etcdClient.getKVClient(), new EtcdLayout("/" + name), expected, PATIENCE);
        assertThat(report.divergences()).isEmpty();
        assertThat(s.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);

        // audit reads the events topic with its own consumer, with the settings as flags
        Cli audit = Cli.run("audit", settings);
        assertThat(audit.exit()).as(audit.out() + "\n" + audit.err()).isZero();
        assertThat(audit.out()).contains("audit: IDENTICAL: " + report.compared() + " keys");
        assertThat(audit.out() + audit.err()).doesNotContain(PASSWORD);
        System.out.printf(
            "KafkaSaslIT figures: SASL/PLAIN broker: %d events through the publisher and the CLI,"
                + " %d etcd keys identical, audit IDENTICAL%n",
            events.size(), report.compared());
      }
      assertThat(logs.text())
          .contains("sasl.jaas.config = [hidden]")
          .doesNotContain(PASSWORD)
          .doesNotContain(ADMIN_PASSWORD);
    }
  }

  @Test
  void shouldStopTheStartWithOneLineNamingTheSaslSettingsWhenTheBrokerRefusesThem(@TempDir Path dir)
      throws Exception {
    String name = "sasl-refused-" + Long.toHexString(System.nanoTime());
    Map<String, String> settings = settings(name, dir);
    settings.putAll(sasl("not-" + PASSWORD));
    try (LogCapture logs = new LogCapture()) {
      Cli run = Cli.run("run", settings);
      System.out.println("KafkaSaslIT: after " + run.millis() + " ms: " + run.err().strip());
      assertThat(run.exit()).isEqualTo(1);
      assertThat(run.err().lines().count()).as(run.err()).isEqualTo(1);
      assertThat(run.err()).contains("kafka.sasl.jaas.config").contains("Authentication failed");
      assertThat(logs.text() + run.out() + run.err()).doesNotContain(PASSWORD);
    }
  }
}
