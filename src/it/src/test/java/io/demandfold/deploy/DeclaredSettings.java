package io.demandfold.deploy;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.config.SettingsLoader;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The {@code DEMANDFOLD_*} variables a deploy file passes, held to what {@code demandfold settings}
 * declares: the loader refuses a name that is neither declared nor {@code kafka.*}, and a {@code
 * kafka.*} name must be one Kafka Streams or its clients know, since the loader passes those
 * through unread (a misspelt {@code DEMANDFOLD_KAFKA_NUM_STANDBY_REPLICA} would otherwise be
 * ignored).
 */
public final class DeclaredSettings {
  /** The prefixes Kafka Streams accepts before a client's setting. */
  private static final List<String> CLIENT_PREFIXES =
      List.of(
          StreamsConfig.MAIN_CONSUMER_PREFIX,
          StreamsConfig.RESTORE_CONSUMER_PREFIX,
          StreamsConfig.GLOBAL_CONSUMER_PREFIX,
          StreamsConfig.CONSUMER_PREFIX,
          StreamsConfig.PRODUCER_PREFIX,
          StreamsConfig.ADMIN_CLIENT_PREFIX,
          StreamsConfig.TOPIC_PREFIX);

  private DeclaredSettings() {}

  /**
   * Loads {@code env} as {@code run} would and checks every {@code kafka.*} name against Kafka's
   * declarations.
   *
   * @throws org.apache.kafka.common.config.ConfigException for a name the loader does not know or a
   *     bad value
   * @throws AssertionError for a {@code kafka.*} name that no Kafka configuration declares
   */
  public static DemandfoldConfig load(Map<String, String> env) {
    SettingsLoader loader = new SettingsLoader().environment(env);
    DemandfoldConfig config = loader.load();
    for (String name : loader.settings().keySet()) {
      if (name.startsWith(DemandfoldConfig.KAFKA_PREFIX)
          && !DemandfoldConfig.DEFINITION.names().contains(name)) {
        String kafka = name.substring(DemandfoldConfig.KAFKA_PREFIX.length());
        if (!isKafkaSetting(kafka)) {
          throw new AssertionError(
              "setting '"
                  + name
                  + "' passes '"
                  + kafka
                  + "' to Kafka, which declares no such name");
        }
      }
    }
    return config;
  }

  /** Whether Kafka Streams, its consumers, producers or admin client declare {@code name}. */
  static boolean isKafkaSetting(String name) {
    Set<String> known = new HashSet<>(StreamsConfig.configDef().names());
    known.addAll(ConsumerConfig.configNames());
    known.addAll(ProducerConfig.configNames());
    known.addAll(AdminClientConfig.configNames());
    if (known.contains(name)) {
      return true;
    }
    for (String prefix : CLIENT_PREFIXES) {
      if (name.startsWith(prefix)) {
        return prefix.equals(StreamsConfig.TOPIC_PREFIX)
            || known.contains(name.substring(prefix.length()));
      }
    }
    return false;
  }
}
