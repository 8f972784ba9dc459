package io.demandfold.mirror.config;

import io.demandfold.mirror.EtcdLayout;
import io.demandfold.mirror.EtcdSettings;
import java.io.File;
import java.net.URI;
import java.util.List;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** Validators of the shared etcd settings; each message names the setting and what is expected. */
final class EtcdValidators {
  private EtcdValidators() {}

  /** {@code http://host:port} or {@code https://host:port} URLs, all of one scheme. */
  static ConfigDef.Validator endpoints(boolean required) {
    return new ConfigDef.Validator() {
      @Override
      public void ensureValid(String name, Object value) {
        List<?> list = (List<?>) value;
        if (list == null || list.isEmpty()) {
          if (required) {
            throw new ConfigException(
                name, "", "name at least one etcd endpoint, e.g. http://127.0.0.1:2379");
          }
          return;
        }
        for (Object o : list) {
          String e = o.toString().trim();
          URI u;
          try {
            u = URI.create(e);
          } catch (IllegalArgumentException x) {
            u = null;
          }
          if (u == null
              || u.getScheme() == null
              || !(u.getScheme().equals("http") || u.getScheme().equals("https"))
              || u.getHost() == null
              || u.getPort() < 0) {
            throw new ConfigException(
                name, e, "expected http://host:port or https://host:port (comma-separated)");
          }
        }
        String mixed = EtcdSettings.mixedSchemes(list.stream().map(Object::toString).toList());
        if (mixed != null) {
          throw new ConfigException(
              name, String.join(",", list.stream().map(o -> o.toString().trim()).toList()), mixed);
        }
      }

      @Override
      public String toString() {
        return "http://host:port or https://host:port, comma-separated";
      }
    };
  }

  /** A path such as {@code /demandfold} ({@link EtcdLayout}). */
  static final ConfigDef.Validator PREFIX =
      new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
          try {
            new EtcdLayout((String) value);
          } catch (IllegalArgumentException e) {
            throw new ConfigException(
                name, value, "expected a path such as /demandfold (starting with '/')");
          }
        }

        @Override
        public String toString() {
          return "a path such as /demandfold";
        }
      };

  /** None, or a file this process can read. */
  static final ConfigDef.Validator READABLE_FILE =
      new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
          if (value != null && !new File((String) value).canRead()) {
            throw new ConfigException(name, value, "file does not exist or is not readable");
          }
        }

        @Override
        public String toString() {
          return "a readable PEM file";
        }
      };
}
