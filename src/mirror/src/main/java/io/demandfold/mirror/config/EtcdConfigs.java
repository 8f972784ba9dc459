package io.demandfold.mirror.config;

import io.demandfold.mirror.EtcdLayout;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.EtcdSettings;
import io.demandfold.mirror.MirrorMetrics;
import io.etcd.jetcd.KV;
import java.io.File;
import java.net.URI;
import java.time.Duration;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.types.Password;

/**
 * The etcd and mirror settings that the pipeline ({@code DemandfoldConfig}) and the Connect
 * connectors ({@code connect.EtcdConnectorConfig}, {@code connect.EtcdSinkConfig}) share, each
 * declared once (name, type, default, validator, importance, documentation), as the JDBC
 * connector's sink config reuses its source config's: a setting means the same wherever it is
 * given, and the README's tables show the same text. The connectors require {@link #ENDPOINTS}
 * ({@link #REQUIRED_ENDPOINTS}); the pipeline needs it only for the commands that reach etcd.
 *
 * <p>How to reach etcd ({@link #etcd}) and the mirror ({@link #mirror}) are read from these
 * settings here, in one place, for the service, {@code rebuild} and the sink alike.
 */
public final class EtcdConfigs {
  public static final String ETCD_ENDPOINTS = "etcd.endpoints";
  public static final String ETCD_PREFIX = "etcd.prefix";
  public static final String ETCD_USER = "etcd.user";
  public static final String ETCD_PASSWORD = "etcd.password";
  public static final String ETCD_TLS_CA = "etcd.tls.ca";
  public static final String ETCD_TLS_CERT = "etcd.tls.cert";
  public static final String ETCD_TLS_KEY = "etcd.tls.key";
  public static final String ETCD_REQUEST_TIMEOUT_MS = "etcd.request.timeout.ms";
  public static final String ETCD_MAX_REQUEST_BYTES = "etcd.max.request.bytes";
  public static final String MIRROR_TABLES = "mirror.tables";
  public static final String MIRROR_CONCURRENCY = "mirror.concurrency";
  public static final String MIRROR_RETRIES = "mirror.retries";

  public static final Setting ENDPOINTS =
      new Setting(
          ETCD_ENDPOINTS,
          Type.LIST,
          "",
          EtcdValidators.endpoints(false),
          Importance.HIGH,
          "etcd endpoints, comma-separated URLs, all http:// or all https:// (TLS). Required by"
              + " the connectors, by 'run' while anything is mirrored, and by inspect, audit and"
              + " rebuild.",
          Width.LONG,
          "etcd endpoints");

  /** {@link #ENDPOINTS} without a default, at least one: the connectors' form. */
  public static final Setting REQUIRED_ENDPOINTS =
      ENDPOINTS.required(EtcdValidators.endpoints(true));

  public static final Setting PREFIX =
      new Setting(
          ETCD_PREFIX,
          Type.STRING,
          "/demandfold",
          EtcdValidators.PREFIX,
          Importance.HIGH,
          "etcd key prefix: shard records live under <prefix>/demand-events/, table records under"
              + " <prefix>/demand/.",
          Width.MEDIUM,
          "etcd prefix");

  public static final Setting USER =
      new Setting(
          ETCD_USER,
          Type.STRING,
          null,
          null,
          Importance.MEDIUM,
          "etcd user; none: no auth.",
          Width.SHORT,
          "etcd user");

  public static final Setting PASSWORD =
      new Setting(
          ETCD_PASSWORD,
          Type.PASSWORD,
          null,
          null,
          Importance.MEDIUM,
          "etcd user's password.",
          Width.SHORT,
          "etcd password");

  public static final Setting TLS_CA =
      new Setting(
          ETCD_TLS_CA,
          Type.STRING,
          null,
          EtcdValidators.READABLE_FILE,
          Importance.MEDIUM,
          "PEM file of the CA that signed etcd's server certificate; none: the JVM's default"
              + " trust store.",
          Width.LONG,
          "etcd TLS CA");

  public static final Setting TLS_CERT =
      new Setting(
          ETCD_TLS_CERT,
          Type.STRING,
          null,
          EtcdValidators.READABLE_FILE,
          Importance.MEDIUM,
          "PEM client certificate for etcd (with etcd.tls.key).",
          Width.LONG,
          "etcd TLS certificate");

  public static final Setting TLS_KEY =
      new Setting(
          ETCD_TLS_KEY,
          Type.STRING,
          null,
          EtcdValidators.READABLE_FILE,
          Importance.MEDIUM,
          "PEM (PKCS#8) private key of etcd.tls.cert.",
          Width.LONG,
          "etcd TLS key");

  public static final Setting REQUEST_TIMEOUT_MS =
      new Setting(
          ETCD_REQUEST_TIMEOUT_MS,
          Type.LONG,
          5000L,
          Range.between(1, 600_000),
          Importance.LOW,
          "Bound on each etcd request, in milliseconds.",
          Width.SHORT,
          "etcd request timeout");

  public static final Setting MAX_REQUEST_BYTES =
      new Setting(
          ETCD_MAX_REQUEST_BYTES,
          Type.INT,
          1_572_864,
          Range.atLeast(EtcdMirror.MIN_REQUEST_BYTES),
          Importance.LOW,
          "etcd's request size limit (its --max-request-bytes); larger table records are"
              + " written compact.",
          Width.SHORT,
          "etcd request limit");

  public static final Setting TABLES =
      new Setting(
          MIRROR_TABLES,
          Type.BOOLEAN,
          true,
          null,
          Importance.MEDIUM,
          "Mirror per-table records into etcd under <prefix>/demand/<hex>.",
          Width.SHORT,
          "mirror tables");

  public static final Setting CONCURRENCY =
      new Setting(
          MIRROR_CONCURRENCY,
          Type.INT,
          16,
          Range.between(1, 1024),
          Importance.MEDIUM,
          "Most etcd read-join-CAS calls in flight: in the pipeline, the most the live"
              + " mirror's adaptive limit (mirror.limit) lets an instance have, each call of up to"
              + " mirror.batch.keys keys; in the sink, per task, each call one key.",
          Width.SHORT,
          "concurrency");

  public static final Setting RETRIES =
      new Setting(
          MIRROR_RETRIES,
          Type.INT,
          5,
          Range.between(0, 100),
          Importance.LOW,
          "Lost compare-and-swap races retried per key before giving up on it: the pipeline"
              + " leaves the key dirty for a later try, the sink has Connect redeliver the batch.",
          Width.SHORT,
          "CAS retries");

  /**
   * How to reach etcd, from a config that declares the {@code etcd.*} settings above.
   *
   * @throws org.apache.kafka.common.config.ConfigException when the config does not declare them
   */
  public static EtcdSettings etcd(AbstractConfig config) {
    Password pw = config.getPassword(ETCD_PASSWORD);
    return new EtcdSettings(
        config.getList(ETCD_ENDPOINTS).stream().map(String::trim).map(URI::create).toList(),
        config.getString(ETCD_USER),
        pw == null ? null : pw.value(),
        file(config, ETCD_TLS_CA),
        file(config, ETCD_TLS_CERT),
        file(config, ETCD_TLS_KEY),
        requestTimeout(config));
  }

  /** {@code etcd.prefix}: where records live. */
  public static EtcdLayout layout(AbstractConfig config) {
    return new EtcdLayout(config.getString(ETCD_PREFIX));
  }

  /** {@code etcd.request.timeout.ms}. */
  public static Duration requestTimeout(AbstractConfig config) {
    return Duration.ofMillis(config.getLong(ETCD_REQUEST_TIMEOUT_MS));
  }

  /**
   * The mirror a config describes: its prefix, retries, request timeout and size limit ({@code
   * DemandfoldConfig}, {@code EtcdSinkConfig}).
   *
   * @param cacheBytes bytes of values and revisions it remembers; 0 for none
   */
  public static EtcdMirror mirror(
      AbstractConfig config, KV kv, MirrorMetrics metrics, long cacheBytes) {
    return EtcdMirror.builder()
        .kv(kv)
        .layout(layout(config))
        .maxRetries(config.getInt(MIRROR_RETRIES))
        .timeout(requestTimeout(config))
        .maxRequestBytes(config.getInt(ETCD_MAX_REQUEST_BYTES))
        .metrics(metrics)
        .cacheBytes(cacheBytes)
        .build();
  }

  /**
   * The setting at fault when only one of {@code etcd.tls.cert} and {@code etcd.tls.key} is set,
   * else {@code null}.
   */
  public static String unpairedTlsSetting(AbstractConfig config) {
    boolean cert = config.getString(ETCD_TLS_CERT) != null;
    boolean key = config.getString(ETCD_TLS_KEY) != null;
    return cert == key ? null : cert ? ETCD_TLS_KEY : ETCD_TLS_CERT;
  }

  /** What {@link #unpairedTlsSetting} is refused with. */
  public static final String TLS_PAIR_MESSAGE = "etcd.tls.cert and etcd.tls.key go together";

  private EtcdConfigs() {}

  private static File file(AbstractConfig config, String name) {
    String p = config.getString(name);
    return p == null ? null : new File(p);
  }
}
