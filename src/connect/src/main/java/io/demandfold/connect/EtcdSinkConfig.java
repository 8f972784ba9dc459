package io.demandfold.connect;

import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.MirrorMetrics;
import io.demandfold.mirror.config.EtcdConfigs;
import io.etcd.jetcd.KV;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.ValidString;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * Settings of the etcd sink: the shared etcd settings, what the input topics carry, whether table
 * records are mirrored too, and how etcd calls are bounded and retried. The topics themselves are
 * Connect's {@code topics} (or {@code topics.regex}).
 */
public final class EtcdSinkConfig extends EtcdConnectorConfig {
  public static final String INPUT = "demandfold.input";
  public static final String MIRROR_TABLES = EtcdConfigs.MIRROR_TABLES;
  public static final String MIRROR_CONCURRENCY = EtcdConfigs.MIRROR_CONCURRENCY;
  public static final String MIRROR_RETRIES = EtcdConfigs.MIRROR_RETRIES;
  public static final String ETCD_MAX_REQUEST_BYTES = EtcdConfigs.ETCD_MAX_REQUEST_BYTES;
  public static final String ETCD_RETRY_BACKOFF_MS = "etcd.retry.backoff.ms";
  public static final String ETCD_RETRY_BACKOFF_MAX_MS = "etcd.retry.backoff.max.ms";

  /** What the sink's topics carry. */
  public enum Input {
    /** Shard lines of {@code demand.shard-records}: folded records, mirrored as they are. */
    SHARD_RECORDS("shard-records"),
    /**
     * Events of {@code demand.events}, JSON or Avro: folded per key in each batch, then mirrored.
     */
    EVENTS("events");

    private final String wire;

    Input(String wire) {
      this.wire = wire;
    }

    public String wire() {
      return wire;
    }

    static Input of(String wire) {
      for (Input i : values()) {
        if (i.wire.equals(wire)) {
          return i;
        }
      }
      throw new IllegalArgumentException(wire);
    }
  }

  private static final String GROUP = "sink";

  /** Every setting of the sink. */
  public static final ConfigDef DEFINITION =
      etcdDefinition()
          .define(
              INPUT,
              Type.STRING,
              Input.SHARD_RECORDS.wire(),
              ValidString.in(Input.SHARD_RECORDS.wire(), Input.EVENTS.wire()),
              Importance.HIGH,
              "What the topics carry: shard-records (the shard lines of demand.shard-records,"
                  + " mirrored as they are) or events (JSON or Avro events of demand.events,"
                  + " folded per key in each batch before they are mirrored).",
              GROUP,
              1,
              Width.SHORT,
              "input")
          .define(EtcdConfigs.TABLES.key(GROUP, 2))
          .define(EtcdConfigs.CONCURRENCY.key(GROUP, 3))
          .define(EtcdConfigs.RETRIES.key(GROUP, 4))
          .define(EtcdConfigs.MAX_REQUEST_BYTES.key(GROUP, 5))
          .define(
              ETCD_RETRY_BACKOFF_MS,
              Type.LONG,
              1000L,
              Range.between(10, 600_000),
              Importance.LOW,
              "After a failed etcd write, Connect redelivers the batch after this many"
                  + " milliseconds, doubled after each further failure up to"
                  + " etcd.retry.backoff.max.ms.",
              GROUP,
              6,
              Width.SHORT,
              "retry backoff")
          .define(
              ETCD_RETRY_BACKOFF_MAX_MS,
              Type.LONG,
              30_000L,
              Range.between(10, 3_600_000),
              Importance.LOW,
              "Longest wait before a batch is redelivered after etcd failures, in milliseconds.",
              GROUP,
              7,
              Width.SHORT,
              "max retry backoff");

  /**
   * @throws org.apache.kafka.common.config.ConfigException naming the setting at fault
   */
  public EtcdSinkConfig(Map<?, ?> props) {
    super(DEFINITION, props, Set.of(BYTE_ARRAY_CONVERTER, STRING_CONVERTER));
    if (getLong(ETCD_RETRY_BACKOFF_MAX_MS) < getLong(ETCD_RETRY_BACKOFF_MS)) {
      throw new SettingException(
          ETCD_RETRY_BACKOFF_MAX_MS,
          getLong(ETCD_RETRY_BACKOFF_MAX_MS),
          "must be at least etcd.retry.backoff.ms (" + getLong(ETCD_RETRY_BACKOFF_MS) + ")");
    }
  }

  public Input input() {
    return Input.of(getString(INPUT));
  }

  public boolean mirrorTables() {
    return getBoolean(MIRROR_TABLES);
  }

  public int concurrency() {
    return getInt(MIRROR_CONCURRENCY);
  }

  public int retries() {
    return getInt(MIRROR_RETRIES);
  }

  public int maxRequestBytes() {
    return getInt(ETCD_MAX_REQUEST_BYTES);
  }

  /**
   * The mirror these settings describe, as the pipeline builds its own ({@link
   * EtcdConfigs#mirror}): prefix, retries, request timeout and size limit; it remembers no values,
   * since a key is written once per batch.
   */
  public EtcdMirror mirror(KV kv, MirrorMetrics metrics) {
    return EtcdConfigs.mirror(this, kv, metrics, 0);
  }

  /** The wait before the {@code failures}-th consecutive redelivery (1-based). */
  public long backoffMs(int failures) {
    long initial = getLong(ETCD_RETRY_BACKOFF_MS);
    long max = getLong(ETCD_RETRY_BACKOFF_MAX_MS);
    int shift = Math.min(Math.max(failures - 1, 0), 30);
    return Math.min(max, initial << shift);
  }

  /** How long one key's read-join-CAS may take at most, all retries included. */
  public Duration callPatience() {
    return requestTimeout().multipliedBy(2L * (retries() + 2));
  }
}
