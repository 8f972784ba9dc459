package io.demandfold.connect;

import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.ValidString;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * Settings of the etcd source: the shared etcd settings, the topic events go to, their encoding,
 * and how much one poll returns and waits.
 */
public final class EtcdSourceConfig extends EtcdConnectorConfig {
  public static final String TOPIC = "topic";
  public static final String ENCODING = "encoding";
  public static final String BATCH_SIZE = "batch.size";
  public static final String POLL_TIMEOUT_MS = "poll.timeout.ms";
  public static final String WATCH_PROGRESS_INTERVAL_MS = "watch.progress.interval.ms";

  private static final String GROUP = "source";

  /** Every setting of the source. */
  public static final ConfigDef DEFINITION =
      etcdDefinition()
          .define(
              TOPIC,
              Type.STRING,
              "demand.events",
              Validators.TOPIC_NAME,
              Importance.HIGH,
              "Topic the events go to: the pipeline's events topic.",
              GROUP,
              1,
              Width.MEDIUM,
              "topic")
          .define(
              ENCODING,
              Type.STRING,
              "json",
              ValidString.in("json", "avro"),
              Importance.MEDIUM,
              "Encoding of the event values: json (canonical JSON, target first) or avro (Avro"
                  + " single-object encoding of schemas/DemandEvent.avsc).",
              GROUP,
              2,
              Width.SHORT,
              "encoding")
          .define(
              BATCH_SIZE,
              Type.INT,
              500,
              Range.between(1, 100_000),
              Importance.LOW,
              "Most records one poll returns (and etcd keys one snapshot page reads); the watch"
                  + " buffers at most four times as many events.",
              GROUP,
              3,
              Width.SHORT,
              "batch size")
          .define(
              POLL_TIMEOUT_MS,
              Type.LONG,
              1000L,
              Range.between(10, 60_000),
              Importance.LOW,
              "Longest a poll waits for the watch to deliver something, in milliseconds.",
              GROUP,
              4,
              Width.SHORT,
              "poll timeout")
          .define(
              WATCH_PROGRESS_INTERVAL_MS,
              Type.LONG,
              5000L,
              Range.between(100, 600_000),
              Importance.LOW,
              "How often the task asks etcd for the watch's progress, in milliseconds. A watch"
                  + " that delivers no event and no progress answer for 3 such intervals is"
                  + " deemed stalled: cancelled and restarted from the revision after the last"
                  + " one delivered (watch-restarts-total{reason=stalled}).",
              GROUP,
              5,
              Width.SHORT,
              "watch progress interval");

  /**
   * @throws org.apache.kafka.common.config.ConfigException naming the setting at fault
   */
  public EtcdSourceConfig(Map<?, ?> props) {
    super(DEFINITION, props, Set.of(BYTE_ARRAY_CONVERTER));
  }

  public String topic() {
    return getString(TOPIC);
  }

  public boolean avro() {
    return getString(ENCODING).equals("avro");
  }

  public int batchSize() {
    return getInt(BATCH_SIZE);
  }

  public long pollTimeoutMs() {
    return getLong(POLL_TIMEOUT_MS);
  }

  public long progressIntervalMs() {
    return getLong(WATCH_PROGRESS_INTERVAL_MS);
  }
}
