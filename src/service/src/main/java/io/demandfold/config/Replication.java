package io.demandfold.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * The validation of {@code topics.replication.factor} and {@code topics.min.insync.replicas}: each
 * is -1 (the broker's default) or a count of replicas, and a minimum of in-sync replicas above the
 * replication factor would leave the topics unwritable with {@code acks=all}.
 */
final class Replication {
  private Replication() {}

  /** The largest replication factor Kafka takes (a short). */
  static final int MAX = Short.MAX_VALUE;

  /** -1 or 1..{@value #MAX}. */
  static final ConfigDef.Validator BROKER_DEFAULT_OR_COUNT =
      new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
          int n = value == null ? 0 : (Integer) value;
          if (n != -1 && (n < 1 || n > MAX)) {
            throw new ConfigException(
                name, value, "expected -1 (the broker's default) or 1.." + MAX);
          }
        }

        @Override
        public String toString() {
          return "-1 or [1,...," + MAX + "]";
        }
      };

  /** Fails naming both settings when the minimum of in-sync replicas exceeds the replicas. */
  static void checkPair(DemandfoldConfig config) {
    int rf = config.getInt(DemandfoldConfig.TOPICS_REPLICATION_FACTOR);
    int minIsr = config.getInt(DemandfoldConfig.TOPICS_MIN_INSYNC_REPLICAS);
    if (rf > 0 && minIsr > rf) {
      throw new ConfigException(
          DemandfoldConfig.TOPICS_MIN_INSYNC_REPLICAS,
          minIsr,
          "above "
              + DemandfoldConfig.TOPICS_REPLICATION_FACTOR
              + "="
              + rf
              + ": no write with acks=all could succeed on the topics demandfold creates");
    }
  }
}
