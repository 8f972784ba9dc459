package io.demandfold.mirror.config;

import java.util.List;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.ConfigKey;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Validator;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * One setting declared once, for every {@link ConfigDef} that takes it: the pipeline's {@code
 * DemandfoldConfig.DEFINITION} and the connectors' definitions define its {@link #key()}, each in
 * its own order (and, for Connect, its own group):
 *
 * <pre>{@code
 * new ConfigDef().define(EtcdConfigs.PREFIX.key()).define(EtcdConfigs.USER.key("etcd", 2))
 * }</pre>
 *
 * @param defaultValue {@link ConfigDef#NO_DEFAULT_VALUE} for a required setting
 * @param validator {@code null} for none besides the type's
 * @param width and {@code displayName}: how Connect's UI shows it
 */
public record Setting(
    String name,
    Type type,
    Object defaultValue,
    Validator validator,
    Importance importance,
    String documentation,
    Width width,
    String displayName) {

  /** The declaration, outside any group. */
  public ConfigKey key() {
    return key(null, -1);
  }

  /** The declaration, {@code orderInGroup}-th of {@code group} (Connect shows settings so). */
  public ConfigKey key(String group, int orderInGroup) {
    // parsed as ConfigDef.define parses it: a list's default is a List, not its text
    Object parsedDefault =
        defaultValue == ConfigDef.NO_DEFAULT_VALUE
            ? defaultValue
            : ConfigDef.parseType(name, defaultValue, type);
    return new ConfigKey(
        name,
        type,
        parsedDefault,
        validator,
        importance,
        documentation,
        group,
        orderInGroup,
        group == null ? Width.NONE : width,
        group == null ? name : displayName,
        List.of(),
        null,
        false);
  }

  /** This setting without a default, and checked by {@code validator} instead. */
  public Setting required(Validator validator) {
    return new Setting(
        name,
        type,
        ConfigDef.NO_DEFAULT_VALUE,
        validator,
        importance,
        documentation,
        width,
        displayName);
  }
}
