package io.demandfold.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.common.config.ConfigException;

/**
 * Collects settings from, in increasing precedence: the defaults, a properties file, {@code
 * DEMANDFOLD_*} environment variables (upper case, dots and dashes as underscores: {@code
 * DEMANDFOLD_ETCD_ENDPOINTS} is {@code etcd.endpoints}, {@code DEMANDFOLD_KAFKA_SASL_JAAS_CONFIG}
 * is {@code kafka.sasl.jaas.config}) and flags. A name that is neither declared nor {@code kafka.*}
 * fails fast, naming where it came from.
 */
public final class SettingsLoader {
  /** Environment variables of that prefix that are not settings. */
  private static final Set<String> NOT_SETTINGS = Set.of("DEMANDFOLD_LOG_LEVEL");

  private static final String ENV_PREFIX = "DEMANDFOLD_";

  private final Map<String, String> settings = new LinkedHashMap<>();
  private final Map<String, String> origins = new LinkedHashMap<>();
  private final Map<String, String> fallbacks = new LinkedHashMap<>();

  /** Adds the settings of a properties file. */
  public SettingsLoader file(Path file) {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    } catch (IOException e) {
      throw new ConfigException("cannot read config file " + file + ": " + e.getMessage());
    }
    for (String name : p.stringPropertyNames()) {
      put(name, p.getProperty(name).trim(), "config file " + file);
    }
    return this;
  }

  /** Adds every {@code DEMANDFOLD_*} variable of {@code env}. */
  public SettingsLoader environment(Map<String, String> env) {
    for (Map.Entry<String, String> e : env.entrySet()) {
      String var = e.getKey();
      if (var.startsWith(ENV_PREFIX) && !NOT_SETTINGS.contains(var)) {
        put(nameOf(var), e.getValue(), "environment variable " + var);
      }
    }
    return this;
  }

  /** Adds one setting given as a flag. */
  public SettingsLoader flag(String name, String value, String flag) {
    put(name, value, "flag " + flag);
    return this;
  }

  /**
   * A default of the calling command, below every other source: used only when neither the file,
   * the environment nor a flag gives {@code name}.
   */
  public SettingsLoader fallback(String name, String value, String origin) {
    requireKnown(name, origin);
    fallbacks.put(name, value);
    origins.putIfAbsent(name, origin);
    return this;
  }

  /** The validated configuration. */
  public DemandfoldConfig load() {
    Map<String, String> all = new LinkedHashMap<>(fallbacks);
    all.putAll(settings);
    try {
      return new DemandfoldConfig(all);
    } catch (ConfigException e) {
      String origin = originOf(e.getMessage());
      throw new ConfigException(e.getMessage() + (origin == null ? "" : " (from " + origin + ")"));
    }
  }

  /** The raw settings collected so far, fallbacks included. */
  public Map<String, String> settings() {
    Map<String, String> all = new LinkedHashMap<>(fallbacks);
    all.putAll(settings);
    return Map.copyOf(all);
  }

  private void put(String name, String value, String origin) {
    requireKnown(name, origin);
    settings.put(name, value);
    origins.put(name, origin);
  }

  private static void requireKnown(String name, String origin) {
    if (!name.startsWith(DemandfoldConfig.KAFKA_PREFIX)
        && !DemandfoldConfig.DEFINITION.names().contains(name)) {
      throw new ConfigException(
          "unknown setting '"
              + name
              + "' (from "
              + origin
              + "); run 'demandfold settings' for the list");
    }
  }

  private String originOf(String message) {
    for (Map.Entry<String, String> e : origins.entrySet()) {
      if (message != null && message.contains(e.getKey())) {
        return e.getValue();
      }
    }
    return null;
  }

  /** The setting an environment variable names. */
  static String nameOf(String var) {
    String rest = var.substring(ENV_PREFIX.length());
    for (String declared : DemandfoldConfig.DEFINITION.names()) {
      if (envForm(declared).equals(rest)) {
        return declared;
      }
    }
    return rest.toLowerCase(Locale.ROOT).replace('_', '.');
  }

  /** The environment form of a setting name, without the prefix. */
  static String envForm(String name) {
    return name.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }
}
