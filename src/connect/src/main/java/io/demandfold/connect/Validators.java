package io.demandfold.connect;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;

/**
 * Validators of single settings that only the connectors take (those of the shared etcd settings
 * are declared with them, {@link io.demandfold.mirror.config.EtcdConfigs}); each message names the
 * setting and says what is expected.
 */
final class Validators {
  private Validators() {}

  /** A legal Kafka topic name. */
  static final ConfigDef.Validator TOPIC_NAME =
      new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
          if (value == null) {
            throw new ConfigException(name, null, "name a Kafka topic");
          }
          try {
            Topic.validate((String) value);
          } catch (InvalidTopicException e) {
            throw new ConfigException(name, value, e.getMessage());
          }
        }

        @Override
        public String toString() {
          return "a Kafka topic name";
        }
      };
}
