package io.demandfold.config;

import io.demandfold.mirror.EtcdLayout;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.EtcdSettings;
import io.demandfold.mirror.LiveMirror;
import io.demandfold.mirror.MirrorLimits;
import io.demandfold.mirror.MirrorMetrics;
import io.demandfold.mirror.config.EtcdConfigs;
import io.demandfold.stream.StreamSettings;
import io.etcd.jetcd.KV;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Every demandfold setting, declared once. Kafka client and Streams settings pass through with the
 * prefix {@code kafka.} (e.g. {@code kafka.security.protocol}); {@code kafka.bootstrap.servers} is
 * declared here because it is required. The etcd and mirror settings the connectors take as well
 * are declared in {@link EtcdConfigs} and defined here from there.
 */
public final class DemandfoldConfig extends AbstractConfig {
  public static final String KAFKA_PREFIX = "kafka.";
  public static final String BOOTSTRAP_SERVERS = "kafka.bootstrap.servers";
  public static final String APPLICATION_ID = "application.id";
  public static final String TOPICS_EVENTS = "topics.events";
  public static final String TOPICS_DLQ = "topics.dlq";
  public static final String TOPICS_SHARD_RECORDS = "topics.shard.records";
  public static final String TOPICS_TABLE_DEMAND = "topics.table.demand";
  public static final String TOPICS_CREATE = "topics.create";
  public static final String TOPICS_DEFINITIONS = "topics.definitions";
  public static final String TOPICS_OUTPUTS_REPLAY = "topics.outputs.replay";
  public static final String TOPICS_REPLICATION_FACTOR = "topics.replication.factor";
  public static final String TOPICS_MIN_INSYNC_REPLICAS = "topics.min.insync.replicas";
  public static final String TOPICS_REQUIRE_REPLICATION = "topics.require.replication";
  public static final String ETCD_ENDPOINTS = EtcdConfigs.ETCD_ENDPOINTS;
  public static final String ETCD_PREFIX = EtcdConfigs.ETCD_PREFIX;
  public static final String ETCD_USER = EtcdConfigs.ETCD_USER;
  public static final String ETCD_PASSWORD = EtcdConfigs.ETCD_PASSWORD;
  public static final String ETCD_TLS_CA = EtcdConfigs.ETCD_TLS_CA;
  public static final String ETCD_TLS_CERT = EtcdConfigs.ETCD_TLS_CERT;
  public static final String ETCD_TLS_KEY = EtcdConfigs.ETCD_TLS_KEY;
  public static final String ETCD_REQUEST_TIMEOUT_MS = EtcdConfigs.ETCD_REQUEST_TIMEOUT_MS;
  public static final String ETCD_MAX_REQUEST_BYTES = EtcdConfigs.ETCD_MAX_REQUEST_BYTES;
  public static final String MIRROR_ENABLED = "mirror.enabled";
  public static final String MIRROR_TABLES = EtcdConfigs.MIRROR_TABLES;
  public static final String MIRROR_CONCURRENCY = EtcdConfigs.MIRROR_CONCURRENCY;
  public static final String MIRROR_BATCH_KEYS = "mirror.batch.keys";
  public static final String MIRROR_RETRIES = EtcdConfigs.MIRROR_RETRIES;
  public static final String MIRROR_CACHE_BYTES = "mirror.cache.bytes";
  public static final String MIRROR_LIMIT = "mirror.limit";
  public static final String MIRROR_BUFFER_BYTES = "mirror.buffer.bytes";
  public static final String MIRROR_LINGER_MS = "mirror.linger.ms";
  public static final String OUTBOX_INTERVAL_MS = "outbox.interval.ms";
  public static final String TABLE_INTERVAL_MS = "table.interval.ms";
  public static final String EMIT_INTERVAL_MS = "emit.interval.ms";
  public static final String CATCHUP_LAG_MS = "catchup.lag.ms";
  public static final String CATCHUP_INTERVAL_MS = "catchup.interval.ms";
  public static final String CATCHUP_HOLD_MAX_MS = "catchup.hold.max.ms";
  public static final String EMIT_PACING_LAG_MS = "emit.pacing.lag.ms";
  public static final String TABLE_CACHE_SHARDS = "table.cache.shards";
  public static final String SHARD_CACHE_RECORDS = "shard.cache.records";
  public static final String STORES_IN_MEMORY = "stores.in.memory";
  public static final String LIMITS_KEYS_PER_TASK = "limits.keys.per.task";
  public static final String LIMITS_SHARDS_PER_TARGET = "limits.shards.per.target";
  public static final String HTTP_ENABLED = "http.enabled";
  public static final String HTTP_HOST = "http.host";
  public static final String HTTP_PORT = "http.port";
  public static final String HTTP_ALLOWED_HOSTS = "http.allowed.hosts";

  /** The declaration of every setting ({@link Definitions}). */
  public static final ConfigDef DEFINITION = Definitions.build();

  public DemandfoldConfig(Map<String, ?> settings) {
    super(DEFINITION, settings, false);
    Replication.checkPair(this);
    String unpaired = EtcdConfigs.unpairedTlsSetting(this);
    if (unpaired != null) {
      throw new ConfigException(unpaired, null, EtcdConfigs.TLS_PAIR_MESSAGE);
    }
  }

  /**
   * Fails naming {@code kafka.bootstrap.servers} when it is not set.
   *
   * @return this
   */
  public DemandfoldConfig requireKafka() {
    if (getString(BOOTSTRAP_SERVERS).isBlank()) {
      throw new ConfigException(
          BOOTSTRAP_SERVERS
              + " is required: give --bootstrap-servers, DEMANDFOLD_KAFKA_BOOTSTRAP_SERVERS or"
              + " kafka.bootstrap.servers in the config file");
    }
    return this;
  }

  /**
   * Fails naming {@code etcd.endpoints} when it is not set.
   *
   * @return this
   */
  public DemandfoldConfig requireEtcd() {
    if (getList(ETCD_ENDPOINTS).isEmpty()) {
      throw new ConfigException(
          ETCD_ENDPOINTS
              + " is required: give --etcd-endpoints, DEMANDFOLD_ETCD_ENDPOINTS or etcd.endpoints"
              + " in the config file");
    }
    return this;
  }

  /** The Kafka Streams / client settings: every {@code kafka.*} setting without the prefix. */
  public Map<String, Object> kafkaSettings() {
    Map<String, Object> out = new HashMap<>();
    for (Map.Entry<String, ?> e : originals().entrySet()) {
      if (e.getKey().startsWith(KAFKA_PREFIX)) {
        out.put(e.getKey().substring(KAFKA_PREFIX.length()), e.getValue());
      }
    }
    return out;
  }

  /**
   * {@link #kafkaSettings()} with {@code bootstrap.servers} from {@code kafka.bootstrap.servers}:
   * the settings a Kafka client of this configuration is made with (a new map).
   */
  public Map<String, Object> kafkaClientSettings() {
    Map<String, Object> out = kafkaSettings();
    out.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, getString(BOOTSTRAP_SERVERS));
    return out;
  }

  public boolean mirrorAnything() {
    return getBoolean(MIRROR_ENABLED) || getBoolean(MIRROR_TABLES);
  }

  public EtcdSettings etcd() {
    return EtcdConfigs.etcd(this);
  }

  /**
   * The mirror these settings describe (prefix, retries, request timeout and size limit).
   *
   * @param cacheBytes bytes of values and revisions it remembers; 0 for none
   */
  public EtcdMirror mirror(KV kv, MirrorMetrics metrics, long cacheBytes) {
    return EtcdConfigs.mirror(this, kv, metrics, cacheBytes);
  }

  /**
   * The instance's live mirror writing through {@code mirror}: the adaptive limit of {@code
   * mirror.limit} up to {@code mirror.concurrency} calls, {@code mirror.batch.keys} keys a call,
   * {@code mirror.buffer.bytes}, {@code mirror.linger.ms}.
   */
  public LiveMirror liveMirror(EtcdMirror mirror, MirrorMetrics metrics) {
    return new LiveMirror(
        mirror,
        metrics,
        MirrorLimits.of(getString(MIRROR_LIMIT), getInt(MIRROR_CONCURRENCY)),
        getInt(MIRROR_BATCH_KEYS),
        getLong(MIRROR_BUFFER_BYTES),
        getLong(MIRROR_LINGER_MS),
        "demandfold-etcd-mirror");
  }

  public EtcdLayout layout() {
    return EtcdConfigs.layout(this);
  }

  /**
   * The topic of events that arrived on a partition their key does not hash to: one per application
   * id, like Kafka Streams' internal topics.
   */
  public String misroutedTopic() {
    return getString(APPLICATION_ID) + "-misrouted";
  }

  /** The topology's settings; the service sets the events topic's partitions once it knows them. */
  public StreamSettings streams() {
    return new StreamSettings(
        getString(TOPICS_EVENTS),
        misroutedTopic(),
        1,
        getString(TOPICS_SHARD_RECORDS),
        getString(TOPICS_TABLE_DEMAND),
        getLong(OUTBOX_INTERVAL_MS),
        getLong(EMIT_INTERVAL_MS),
        getLong(CATCHUP_LAG_MS),
        getLong(CATCHUP_INTERVAL_MS),
        getLong(CATCHUP_HOLD_MAX_MS),
        getLong(EMIT_PACING_LAG_MS),
        getLong(TABLE_INTERVAL_MS),
        getBoolean(MIRROR_ENABLED),
        getBoolean(MIRROR_TABLES),
        getBoolean(STORES_IN_MEMORY),
        getInt(TABLE_CACHE_SHARDS),
        getInt(SHARD_CACHE_RECORDS),
        getInt(LIMITS_KEYS_PER_TASK),
        getInt(LIMITS_SHARDS_PER_TARGET));
  }
}
