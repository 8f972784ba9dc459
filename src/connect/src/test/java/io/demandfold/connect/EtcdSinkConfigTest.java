package io.demandfold.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.demandfold.connect.EtcdSinkConfig.Input;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

class EtcdSinkConfigTest {
  static Map<String, String> minimal() {
    Map<String, String> m = new HashMap<>();
    m.put("etcd.endpoints", "http://127.0.0.1:2379");
    m.put("key.converter", EtcdConnectorConfig.BYTE_ARRAY_CONVERTER);
    m.put("value.converter", EtcdConnectorConfig.BYTE_ARRAY_CONVERTER);
    return m;
  }

  static Map<String, String> with(String name, String value) {
    Map<String, String> m = minimal();
    if (value == null) {
      m.remove(name);
    } else {
      m.put(name, value);
    }
    return m;
  }

  /** The errors {@code validate} reports, by setting. */
  static Map<String, List<String>> errors(Config c) {
    Map<String, List<String>> out = new HashMap<>();
    for (ConfigValue v : c.configValues()) {
      if (!v.errorMessages().isEmpty()) {
        out.put(v.name(), v.errorMessages());
      }
    }
    return out;
  }

  @Test
  void shouldDefaultToMirroringShardRecordsAndTablesLikeThePipeline() {
    EtcdSinkConfig c = new EtcdSinkConfig(minimal());
    assertThat(c.input()).isEqualTo(Input.SHARD_RECORDS);
    assertThat(c.mirrorTables()).isTrue();
    assertThat(c.concurrency()).isEqualTo(16);
    assertThat(c.retries()).isEqualTo(5);
    assertThat(c.maxRequestBytes()).isEqualTo(1_572_864);
    assertThat(c.layout().prefix()).isEqualTo("/demandfold");
    assertThat(c.etcd().endpoints()).hasSize(1);
    assertThat(c.etcd().requestTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.etcd().user()).isNull();
  }

  @Test
  void shouldDoubleTheRedeliveryBackoffUpToItsMaximum() {
    Map<String, String> props = with("etcd.retry.backoff.ms", "100");
    props.put("etcd.retry.backoff.max.ms", "1000");
    EtcdSinkConfig c = new EtcdSinkConfig(props);
    assertThat(
            List.of(
                c.backoffMs(1), c.backoffMs(2), c.backoffMs(4), c.backoffMs(5), c.backoffMs(99)))
        .containsExactly(100L, 200L, 800L, 1000L, 1000L);
  }

  @Test
  void shouldRejectEachBadSettingWithAMessageNamingIt() {
    Map<String, String[]> bad = new java.util.LinkedHashMap<>();
    bad.put("etcd.endpoints", new String[] {"127.0.0.1:2379", "expected http://host:port"});
    bad.put("etcd.prefix", new String[] {"demandfold", "a path such as /demandfold"});
    bad.put("demandfold.input", new String[] {"tables", "String must be one of"});
    bad.put("mirror.concurrency", new String[] {"0", "Value must be at least 1"});
    bad.put("mirror.retries", new String[] {"-1", "Value must be at least 0"});
    bad.put("mirror.tables", new String[] {"maybe", "Expected value to be either true or false"});
    bad.put("etcd.request.timeout.ms", new String[] {"0", "Value must be at least 1"});
    bad.put("etcd.max.request.bytes", new String[] {"10", "Value must be at least 1024"});
    bad.put("etcd.tls.ca", new String[] {"/no/such/ca.pem", "file does not exist"});
    bad.put("etcd.retry.backoff.ms", new String[] {"1", "Value must be at least 10"});
    bad.forEach(
        (name, v) ->
            assertThatThrownBy(() -> new EtcdSinkConfig(with(name, v[0])))
                .as(name)
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(name)
                .hasMessageContaining(v[1]));
    assertThatThrownBy(() -> new EtcdSinkConfig(with("etcd.endpoints", null)))
        .hasMessageContaining("Missing required configuration \"etcd.endpoints\"");
  }

  @Test
  void shouldRefuseEndpointsOfMixedSchemesOnTheSettingItself() {
    String mixed = "http://etcd1:2379, https://etcd2:2379";
    assertThatThrownBy(() -> new EtcdSinkConfig(with("etcd.endpoints", mixed)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("etcd.endpoints")
        .hasMessageContaining("mixes http:// and https://");
    Map<String, List<String>> errors =
        errors(new EtcdSinkConnector().validate(with("etcd.endpoints", mixed)));
    assertThat(errors).containsOnlyKeys("etcd.endpoints");
    assertThat(new EtcdSinkConfig(with("etcd.endpoints", "https://etcd1:2379")).etcd().tls())
        .as("https:// without etcd.tls.ca: TLS with the JVM's default trust store")
        .isTrue();
  }

  @Test
  void shouldReportBadSettingsThroughValidateOnTheSettingItself() {
    EtcdSinkConnector connector = new EtcdSinkConnector();
    Map<String, String> props = with("etcd.prefix", "nope");
    props.put("mirror.concurrency", "0");
    Map<String, List<String>> errors = errors(connector.validate(props));
    assertThat(errors).containsOnlyKeys("etcd.prefix", "mirror.concurrency");
    assertThat(errors.get("etcd.prefix").get(0)).contains("etcd.prefix", "/demandfold");
    assertThat(errors(connector.validate(minimal()))).isEmpty();
  }

  @Test
  void shouldDemandConvertersThatPassBytesThrough() {
    EtcdSinkConnector connector = new EtcdSinkConnector();
    Map<String, List<String>> errors =
        errors(
            connector.validate(
                with("value.converter", "org.apache.kafka.connect.json.JsonConverter")));
    assertThat(errors).containsOnlyKeys("value.converter");
    assertThat(errors.get("value.converter").get(0))
        .contains("value.converter", EtcdConnectorConfig.BYTE_ARRAY_CONVERTER);
    assertThat(errors(connector.validate(with("key.converter", null))))
        .containsOnlyKeys("key.converter");
    assertThat(
            errors(
                connector.validate(with("value.converter", EtcdConnectorConfig.STRING_CONVERTER))))
        .isEmpty();
  }

  @Test
  void shouldDemandCertificateAndKeyTogetherAndAnOrderedBackoff() throws Exception {
    java.nio.file.Path pem = java.nio.file.Files.createTempFile("cert", ".pem");
    try {
      EtcdSinkConnector connector = new EtcdSinkConnector();
      assertThat(errors(connector.validate(with("etcd.tls.cert", pem.toString()))))
          .containsOnlyKeys("etcd.tls.key");
      Map<String, String> backoff = with("etcd.retry.backoff.ms", "5000");
      backoff.put("etcd.retry.backoff.max.ms", "100");
      assertThat(errors(connector.validate(backoff)).get("etcd.retry.backoff.max.ms"))
          .singleElement()
          .asString()
          .contains("must be at least etcd.retry.backoff.ms");
    } finally {
      java.nio.file.Files.delete(pem);
    }
  }

  @Test
  void shouldNeverShowThePasswordInMessages() {
    Map<String, String> props = with("etcd.password", "s3cret-pw");
    props.put("etcd.prefix", "bad");
    assertThatThrownBy(() -> new EtcdSinkConfig(props)).message().doesNotContain("s3cret-pw");
    assertThat(new EtcdSinkConfig(with("etcd.password", "s3cret-pw")).etcd().toString())
        .doesNotContain("s3cret-pw");
  }
}
