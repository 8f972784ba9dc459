package io.demandfold.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingsLoaderTest {
  private static final Map<String, String> MINIMAL =
      Map.of(
          "DEMANDFOLD_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092",
          "DEMANDFOLD_ETCD_ENDPOINTS", "http://127.0.0.1:2379");

  @Test
  void shouldSufficeWithTheEnvironmentAlone() {
    DemandfoldConfig c = new SettingsLoader().environment(MINIMAL).load();
    assertThat(c.getString(DemandfoldConfig.BOOTSTRAP_SERVERS)).isEqualTo("127.0.0.1:9092");
    assertThat(c.getString(DemandfoldConfig.ETCD_PREFIX)).isEqualTo("/demandfold");
    assertThat(c.getString(DemandfoldConfig.APPLICATION_ID)).isEqualTo("demandfold");
    assertThat(c.getString(DemandfoldConfig.TOPICS_EVENTS)).isEqualTo("demand.events");
    assertThat(c.getBoolean(DemandfoldConfig.MIRROR_TABLES)).isTrue();
  }

  @Test
  void shouldLetFlagsBeatTheEnvironmentAndTheEnvironmentBeatTheFile(@TempDir Path dir)
      throws IOException {
    Path file = dir.resolve("demandfold.properties");
    Files.writeString(
        file, "etcd.prefix=/from-file\napplication.id=file-app\nmirror.concurrency=3\n");
    DemandfoldConfig c =
        new SettingsLoader()
            .file(file)
            .environment(
                Map.of(
                    "DEMANDFOLD_ETCD_PREFIX", "/from-env",
                    "DEMANDFOLD_APPLICATION_ID", "env-app",
                    "DEMANDFOLD_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:1",
                    "DEMANDFOLD_ETCD_ENDPOINTS", "http://127.0.0.1:2"))
            .flag("etcd.prefix", "/from-flag", "--set etcd.prefix")
            .load();
    assertThat(c.getString(DemandfoldConfig.ETCD_PREFIX)).isEqualTo("/from-flag");
    assertThat(c.getString(DemandfoldConfig.APPLICATION_ID)).isEqualTo("env-app");
    assertThat(c.getInt(DemandfoldConfig.MIRROR_CONCURRENCY)).isEqualTo(3);
  }

  @Test
  void shouldUseACommandsFallbackOnlyWhenNoSourceGivesTheSetting() {
    SettingsLoader given =
        new SettingsLoader()
            .fallback("kafka.state.dir", "/default/state", "the default of 'run'")
            .environment(MINIMAL)
            .environment(Map.of("DEMANDFOLD_KAFKA_STATE_DIR", "/from/env"));
    assertThat(given.load().kafkaSettings()).containsEntry("state.dir", "/from/env");
    SettingsLoader notGiven =
        new SettingsLoader()
            .environment(MINIMAL)
            .fallback("kafka.state.dir", "/default/state", "the default of 'run'");
    assertThat(notGiven.load().kafkaSettings()).containsEntry("state.dir", "/default/state");
    assertThat(notGiven.settings()).containsEntry("kafka.state.dir", "/default/state");
    assertThatThrownBy(() -> new SettingsLoader().fallback("no.such", "x", "a test"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("no.such");
  }

  @Test
  void shouldPassKafkaSettingsThroughWithoutThePrefix() {
    DemandfoldConfig c =
        new SettingsLoader()
            .environment(MINIMAL)
            .environment(Map.of("DEMANDFOLD_KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT"))
            .flag("kafka.num.stream.threads", "2", "--set")
            .load();
    assertThat(c.kafkaSettings())
        .containsEntry("security.protocol", "SASL_PLAINTEXT")
        .containsEntry("num.stream.threads", "2")
        .containsEntry("bootstrap.servers", "127.0.0.1:9092");
  }

  @Test
  void shouldNameTheSettingAndItsOriginWhenInvalid() {
    assertThatThrownBy(
            () ->
                new SettingsLoader()
                    .environment(MINIMAL)
                    .environment(Map.of("DEMANDFOLD_MIRROR_CONCURRENCY", "0"))
                    .load())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("mirror.concurrency")
        .hasMessageContaining("environment variable DEMANDFOLD_MIRROR_CONCURRENCY");
    assertThatThrownBy(
            () ->
                new SettingsLoader()
                    .environment(MINIMAL)
                    .flag("mirror.batch.keys", "200", "--set")
                    .load())
        .as("etcd refuses transactions of more than 128 operations by default")
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("mirror.batch.keys")
        .hasMessageContaining("200");
    assertThatThrownBy(() -> new SettingsLoader().flag("mirror.concurency", "3", "--set"))
        .hasMessageContaining("unknown setting 'mirror.concurency'");
    assertThatThrownBy(
            () ->
                new SettingsLoader()
                    .environment(Map.of("DEMANDFOLD_ETCD_ENDPOINTS", "http://127.0.0.1:1"))
                    .load()
                    .requireKafka())
        .hasMessageContaining("kafka.bootstrap.servers is required");
    assertThatThrownBy(() -> new SettingsLoader().load().requireEtcd())
        .hasMessageContaining("etcd.endpoints is required");
    assertThatThrownBy(
            () ->
                new SettingsLoader()
                    .environment(MINIMAL)
                    .flag("etcd.endpoints", "127.0.0.1:2379", "--etcd-endpoints")
                    .load())
        .hasMessageContaining("etcd.endpoints")
        .hasMessageContaining("expected http://host:port");
    assertThatThrownBy(
            () ->
                new SettingsLoader()
                    .environment(MINIMAL)
                    .flag("etcd.tls.ca", "/nonexistent/ca.pem", "--set")
                    .load())
        .hasMessageContaining("etcd.tls.ca")
        .hasMessageContaining("not readable");
  }

  @Test
  void shouldRefuseEndpointsOfMixedSchemesNamingTheSetting() {
    assertThatThrownBy(
            () ->
                new SettingsLoader()
                    .environment(MINIMAL)
                    .flag(
                        "etcd.endpoints",
                        "https://etcd1:2379,http://etcd2:2379",
                        "--etcd-endpoints")
                    .load())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("etcd.endpoints")
        .hasMessageContaining("--etcd-endpoints")
        .hasMessageContaining("mixes http:// and https://");
    assertThat(
            new SettingsLoader()
                .environment(MINIMAL)
                .flag("etcd.endpoints", "https://etcd1:2379,https://etcd2:2379", "--set")
                .load()
                .etcd()
                .tls())
        .isTrue();
  }

  @Test
  void shouldNotRequireEtcdWhenNothingIsMirrored() {
    DemandfoldConfig c =
        new SettingsLoader()
            .flag("kafka.bootstrap.servers", "127.0.0.1:1", "--bootstrap-servers")
            .flag("mirror.enabled", "false", "--set")
            .flag("mirror.tables", "false", "--set")
            .load();
    assertThat(c.mirrorAnything()).isFalse();
  }

  @Test
  void shouldMapEnvironmentNamesBackToDeclaredSettings() {
    assertThat(SettingsLoader.nameOf("DEMANDFOLD_TOPICS_SHARD_RECORDS"))
        .isEqualTo("topics.shard.records");
    assertThat(SettingsLoader.nameOf("DEMANDFOLD_KAFKA_SASL_JAAS_CONFIG"))
        .isEqualTo("kafka.sasl.jaas.config");
    assertThat(SettingsLoader.envForm("etcd.max.request.bytes"))
        .isEqualTo("ETCD_MAX_REQUEST_BYTES");
  }

  @Test
  void shouldNeverShowThePassword() {
    DemandfoldConfig c =
        new SettingsLoader()
            .environment(MINIMAL)
            .flag("etcd.user", "demandfold", "--set")
            .flag("etcd.password", "s3cret-pw", "--set")
            .load();
    assertThat(c.etcd().password()).isEqualTo("s3cret-pw");
    assertThat(c.etcd().toString()).doesNotContain("s3cret-pw").contains("[hidden]");
    assertThat(c.values().toString()).doesNotContain("s3cret-pw");
  }
}
