package io.demandfold.connect;

import io.demandfold.mirror.EtcdLayout;
import io.demandfold.mirror.EtcdSettings;
import java.io.File;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.common.config.types.Password;

/**
 * The etcd settings both connectors share, named and meaning as in the pipeline ({@code
 * etcd.endpoints}, {@code etcd.prefix}, ...), plus the checks that span settings: TLS certificate
 * and key go together, and the connector's {@code key.converter} and {@code value.converter} must
 * pass bytes through unchanged.
 */
public abstract class EtcdConnectorConfig extends AbstractConfig {
  public static final String ETCD_ENDPOINTS = "etcd.endpoints";
  public static final String ETCD_PREFIX = "etcd.prefix";
  public static final String ETCD_USER = "etcd.user";
  public static final String ETCD_PASSWORD = "etcd.password";
  public static final String ETCD_TLS_CA = "etcd.tls.ca";
  public static final String ETCD_TLS_CERT = "etcd.tls.cert";
  public static final String ETCD_TLS_KEY = "etcd.tls.key";
  public static final String ETCD_REQUEST_TIMEOUT_MS = "etcd.request.timeout.ms";

  /** The converter that hands records to and from Kafka as raw bytes. */
  public static final String BYTE_ARRAY_CONVERTER =
      "org.apache.kafka.connect.converters.ByteArrayConverter";

  /** A converter that hands record bytes over as UTF-8 text (accepted by the sink). */
  public static final String STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter";

  static final String KEY_CONVERTER = "key.converter";
  static final String VALUE_CONVERTER = "value.converter";
  private static final String GROUP = "etcd";

  /** The shared etcd settings. */
  static ConfigDef etcdDefinition() {
    int order = 0;
    return new ConfigDef()
        .define(
            ETCD_ENDPOINTS,
            Type.LIST,
            ConfigDef.NO_DEFAULT_VALUE,
            Validators.ETCD_ENDPOINTS,
            Importance.HIGH,
            "etcd endpoints, comma-separated URLs, all http:// or all https:// (TLS).",
            GROUP,
            ++order,
            ConfigDef.Width.LONG,
            "etcd endpoints")
        .define(
            ETCD_PREFIX,
            Type.STRING,
            "/demandfold",
            Validators.ETCD_PREFIX,
            Importance.HIGH,
            "etcd key prefix: shard records live under <prefix>/demand-events/, table records"
                + " under <prefix>/demand/.",
            GROUP,
            ++order,
            ConfigDef.Width.MEDIUM,
            "etcd prefix")
        .define(
            ETCD_USER,
            Type.STRING,
            null,
            Importance.MEDIUM,
            "etcd user; none: no auth.",
            GROUP,
            ++order,
            ConfigDef.Width.SHORT,
            "etcd user")
        .define(
            ETCD_PASSWORD,
            Type.PASSWORD,
            null,
            Importance.MEDIUM,
            "etcd user's password.",
            GROUP,
            ++order,
            ConfigDef.Width.SHORT,
            "etcd password")
        .define(
            ETCD_TLS_CA,
            Type.STRING,
            null,
            Validators.READABLE_FILE,
            Importance.MEDIUM,
            "PEM file of the CA that signed etcd's server certificate; none: the JVM's default"
                + " trust store.",
            GROUP,
            ++order,
            ConfigDef.Width.LONG,
            "etcd TLS CA")
        .define(
            ETCD_TLS_CERT,
            Type.STRING,
            null,
            Validators.READABLE_FILE,
            Importance.MEDIUM,
            "PEM client certificate for etcd (with etcd.tls.key).",
            GROUP,
            ++order,
            ConfigDef.Width.LONG,
            "etcd TLS certificate")
        .define(
            ETCD_TLS_KEY,
            Type.STRING,
            null,
            Validators.READABLE_FILE,
            Importance.MEDIUM,
            "PEM (PKCS#8) private key of etcd.tls.cert.",
            GROUP,
            ++order,
            ConfigDef.Width.LONG,
            "etcd TLS key")
        .define(
            ETCD_REQUEST_TIMEOUT_MS,
            Type.LONG,
            5000L,
            Range.between(1, 600_000),
            Importance.LOW,
            "Bound on each etcd request, in milliseconds.",
            GROUP,
            ++order,
            ConfigDef.Width.SHORT,
            "etcd request timeout");
  }

  /**
   * @param converters the converter classes this connector accepts for keys and values
   * @throws ConfigException naming the setting at fault
   */
  EtcdConnectorConfig(ConfigDef definition, Map<?, ?> props, Set<String> converters) {
    super(definition, props, false);
    if ((getString(ETCD_TLS_CERT) == null) != (getString(ETCD_TLS_KEY) == null)) {
      String missing = getString(ETCD_TLS_CERT) == null ? ETCD_TLS_CERT : ETCD_TLS_KEY;
      throw new SettingException(missing, null, "etcd.tls.cert and etcd.tls.key go together");
    }
    for (String name : List.of(KEY_CONVERTER, VALUE_CONVERTER)) {
      Object v = props.get(name);
      String cls = v instanceof Class<?> c ? c.getName() : v == null ? null : v.toString().trim();
      if (cls == null || !converters.contains(cls)) {
        throw new SettingException(
            name,
            cls,
            "this connector exchanges raw bytes with Kafka: set "
                + name
                + " to "
                + String.join(" or ", converters.stream().sorted().toList()));
      }
    }
  }

  /** How to reach etcd. */
  public EtcdSettings etcd() {
    Password pw = getPassword(ETCD_PASSWORD);
    return new EtcdSettings(
        getList(ETCD_ENDPOINTS).stream().map(String::trim).map(URI::create).toList(),
        getString(ETCD_USER),
        pw == null ? null : pw.value(),
        file(ETCD_TLS_CA),
        file(ETCD_TLS_CERT),
        file(ETCD_TLS_KEY),
        requestTimeout());
  }

  public EtcdLayout layout() {
    return new EtcdLayout(getString(ETCD_PREFIX));
  }

  public Duration requestTimeout() {
    return Duration.ofMillis(getLong(ETCD_REQUEST_TIMEOUT_MS));
  }

  private File file(String name) {
    String p = getString(name);
    return p == null ? null : new File(p);
  }

  /**
   * What {@code Connector.validate} returns: each setting checked on its own, then, when all pass,
   * the checks that span settings, reported on the setting they name.
   */
  static Config validate(
      ConfigDef definition, Map<String, String> props, Function<Map<String, String>, ?> parse) {
    List<ConfigValue> values = new ArrayList<>(definition.validate(props));
    if (values.stream().allMatch(v -> v.errorMessages().isEmpty())) {
      try {
        parse.apply(props);
      } catch (SettingException e) {
        ConfigValue v =
            values.stream()
                .filter(c -> c.name().equals(e.setting()))
                .findFirst()
                .orElseGet(
                    () -> {
                      // a setting of Connect's (a converter): Connect shows its value itself
                      ConfigValue c = new ConfigValue(e.setting());
                      values.add(c);
                      return c;
                    });
        v.addErrorMessage(e.getMessage());
      }
    }
    return new Config(values);
  }
}
