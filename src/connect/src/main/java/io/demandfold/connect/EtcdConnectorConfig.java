package io.demandfold.connect;

import io.demandfold.mirror.EtcdLayout;
import io.demandfold.mirror.EtcdSettings;
import io.demandfold.mirror.config.EtcdConfigs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;

/**
 * The etcd settings both connectors share, declared once with the pipeline's ({@link EtcdConfigs}:
 * {@code etcd.endpoints}, {@code etcd.prefix}, ...), plus the checks that span settings: TLS
 * certificate and key go together, and the connector's {@code key.converter} and {@code
 * value.converter} must pass bytes through unchanged.
 */
public abstract class EtcdConnectorConfig extends AbstractConfig {

  /** The converter that hands records to and from Kafka as raw bytes. */
  public static final String BYTE_ARRAY_CONVERTER =
      "org.apache.kafka.connect.converters.ByteArrayConverter";

  /** A converter that hands record bytes over as UTF-8 text (accepted by the sink). */
  public static final String STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter";

  static final String KEY_CONVERTER = "key.converter";
  static final String VALUE_CONVERTER = "value.converter";
  private static final String GROUP = "etcd";

  /** The shared etcd settings ({@link EtcdConfigs}); {@code etcd.endpoints} is required. */
  static ConfigDef etcdDefinition() {
    int order = 0;
    return new ConfigDef()
        .define(EtcdConfigs.REQUIRED_ENDPOINTS.key(GROUP, ++order))
        .define(EtcdConfigs.PREFIX.key(GROUP, ++order))
        .define(EtcdConfigs.USER.key(GROUP, ++order))
        .define(EtcdConfigs.PASSWORD.key(GROUP, ++order))
        .define(EtcdConfigs.TLS_CA.key(GROUP, ++order))
        .define(EtcdConfigs.TLS_CERT.key(GROUP, ++order))
        .define(EtcdConfigs.TLS_KEY.key(GROUP, ++order))
        .define(EtcdConfigs.REQUEST_TIMEOUT_MS.key(GROUP, ++order));
  }

  /**
   * @param converters the converter classes this connector accepts for keys and values
   * @throws ConfigException naming the setting at fault
   */
  EtcdConnectorConfig(ConfigDef definition, Map<?, ?> props, Set<String> converters) {
    super(definition, props, false);
    String unpaired = EtcdConfigs.unpairedTlsSetting(this);
    if (unpaired != null) {
      throw new SettingException(unpaired, null, EtcdConfigs.TLS_PAIR_MESSAGE);
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
    return EtcdConfigs.etcd(this);
  }

  public EtcdLayout layout() {
    return EtcdConfigs.layout(this);
  }

  public Duration requestTimeout() {
    return EtcdConfigs.requestTimeout(this);
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
