package io.demandfold.config;

import static io.demandfold.config.DemandfoldConfig.*;

import io.demandfold.mirror.MirrorLimits;
import io.demandfold.mirror.config.EtcdConfigs;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * The declaration of every setting of {@link DemandfoldConfig}, with its documentation, from which
 * {@code demandfold settings} and the table of docs/configuration.md are rendered: one list keeps
 * each setting declared once.
 */
final class Definitions {
  private Definitions() {}

  static ConfigDef build() {
    return new ConfigDef()
        .define(
            BOOTSTRAP_SERVERS,
            Type.STRING,
            "",
            Importance.HIGH,
            "Kafka brokers to connect to, host:port[,host:port...]. Required by every command"
                + " that reads or writes Kafka.")
        .define(
            APPLICATION_ID,
            Type.STRING,
            "demandfold",
            new ConfigDef.NonEmptyString(),
            Importance.HIGH,
            "Kafka Streams application id: the consumer group, and the prefix of internal"
                + " topics. A new id replays the events topic from the beginning; into output topics"
                + " that hold records only with topics.outputs.replay=true.")
        .define(
            TOPICS_EVENTS,
            Type.STRING,
            "demand.events",
            new ConfigDef.NonEmptyString(),
            Importance.HIGH,
            "Input topic of watermark events.")
        .define(
            TOPICS_DLQ,
            Type.STRING,
            "demand.events.dlq",
            new ConfigDef.NonEmptyString(),
            Importance.MEDIUM,
            "Dead-letter topic: rejected events with their original bytes and reason headers.")
        .define(
            TOPICS_SHARD_RECORDS,
            Type.STRING,
            "demand.shard-records",
            new ConfigDef.NonEmptyString(),
            Importance.MEDIUM,
            "Compacted output topic of per-shard records and views.")
        .define(
            TOPICS_TABLE_DEMAND,
            Type.STRING,
            "demand.table-demand",
            new ConfigDef.NonEmptyString(),
            Importance.MEDIUM,
            "Compacted output topic of per-table views.")
        .define(
            TOPICS_CREATE,
            Type.BOOLEAN,
            true,
            Importance.MEDIUM,
            "Create missing topics at start (from topics.definitions). When false, start-up"
                + " fails naming a missing topic.")
        .define(
            TOPICS_DEFINITIONS,
            Type.STRING,
            "",
            Importance.LOW,
            "Properties file of topic partitions, replication and configs; empty: the built-in"
                + " topology/topics.properties.")
        .define(
            TOPICS_OUTPUTS_REPLAY,
            Type.BOOLEAN,
            false,
            Importance.LOW,
            "Let a new application.id (no offsets committed on topics.events) start although"
                + " topics.shard.records or topics.table.demand already hold records: its"
                + " replay of the events sets every shard and table in them back before they"
                + " climb again. When false such a start stops, naming this setting.")
        .define(
            TOPICS_REPLICATION_FACTOR,
            Type.INT,
            -1,
            Replication.BROKER_DEFAULT_OR_COUNT,
            Importance.MEDIUM,
            "Replication factor of the topics demandfold creates: Kafka Streams' changelog and"
                + " repartition topics (its replication.factor), the misrouted topic, and those"
                + " of topics.definitions whose replication.factor is -1 (DLQ, outputs, and the"
                + " events topic when demandfold creates it). -1: the broker's"
                + " default.replication.factor (the misrouted topic then copies the events"
                + " topic's). Existing topics are not changed.")
        .define(
            TOPICS_MIN_INSYNC_REPLICAS,
            Type.INT,
            -1,
            Replication.BROKER_DEFAULT_OR_COUNT,
            Importance.MEDIUM,
            "min.insync.replicas of the topics demandfold creates (as for"
                + " topics.replication.factor; a topics.definitions file's"
                + " <role>.config.min.insync.replicas wins), at most topics.replication.factor"
                + " when that is set. -1: the broker's min.insync.replicas (the misrouted topic"
                + " then copies the events topic's). Existing topics are not changed.")
        .define(
            TOPICS_REQUIRE_REPLICATION,
            Type.BOOLEAN,
            false,
            Importance.MEDIUM,
            "Refuse to start when the events topic, on a cluster of 3 or more brokers, has"
                + " replication factor 1 or min.insync.replicas 1 (one broker's loss can lose"
                + " or stop the log of record). When false, start-up logs a WARN naming the"
                + " topic and the figures.")
        .define(EtcdConfigs.ENDPOINTS.key())
        .define(EtcdConfigs.PREFIX.key())
        .define(EtcdConfigs.USER.key())
        .define(EtcdConfigs.PASSWORD.key())
        .define(EtcdConfigs.TLS_CA.key())
        .define(EtcdConfigs.TLS_CERT.key())
        .define(EtcdConfigs.TLS_KEY.key())
        .define(EtcdConfigs.REQUEST_TIMEOUT_MS.key())
        .define(EtcdConfigs.MAX_REQUEST_BYTES.key())
        .define(
            MIRROR_ENABLED,
            Type.BOOLEAN,
            true,
            Importance.HIGH,
            "Mirror per-shard records into etcd.")
        .define(EtcdConfigs.TABLES.key())
        .define(EtcdConfigs.CONCURRENCY.key())
        .define(
            MIRROR_BATCH_KEYS,
            Type.INT,
            64,
            Range.between(1, 128),
            Importance.MEDIUM,
            "Most shard keys one etcd transaction reads or compare-and-swaps; a lost race"
                + " sends the batch's keys on one by one. At most 128, etcd's default"
                + " --max-txn-ops.")
        .define(EtcdConfigs.RETRIES.key())
        .define(
            MIRROR_CACHE_BYTES,
            Type.LONG,
            64L << 20,
            Range.atLeast(0),
            Importance.LOW,
            "Bytes of etcd values and revisions the mirror remembers (an estimate of the heap"
                + " they take; a shard record about 1.3 KB, a table record about 170 bytes a"
                + " shard), least recently used first out: an unchanged join then sends nothing,"
                + " a write is one compare-and-swap. 0 disables.")
        .define(
            MIRROR_LIMIT,
            Type.STRING,
            "vegas",
            ConfigDef.ValidString.in(MirrorLimits.NAMES.toArray(String[]::new)),
            Importance.LOW,
            "How the live mirror adapts its etcd calls in flight, between 1 and"
                + " mirror.concurrency: vegas (grows while calls take about the shortest time"
                + " seen, shrinks as they take longer or time out), gradient2 (against the"
                + " long-term average round trip), aimd (halves on a timeout), fixed (always"
                + " mirror.concurrency). Keys wait while the limit is reached, so each write"
                + " then carries more changes.")
        .define(
            MIRROR_BUFFER_BYTES,
            Type.LONG,
            64L << 20,
            Range.atLeast(1L << 20),
            Importance.LOW,
            "Bytes of records (an estimate of the heap they take) the live mirror holds for"
                + " writing, over all tasks of the instance; past it a dirty key stays in its"
                + " outbox and is read back from the store when there is room, so an etcd"
                + " outage or a catch-up holds at most this much.")
        .define(
            MIRROR_LINGER_MS,
            Type.LONG,
            0L,
            Range.between(0, 60_000),
            Importance.LOW,
            "How long a changed key waits before the live mirror writes it, in milliseconds,"
                + " so that more of its changes share a write; 0 writes as soon as a call is"
                + " free (keys wait anyway while the concurrency limit is reached).")
        .define(
            OUTBOX_INTERVAL_MS,
            Type.LONG,
            100L,
            Range.between(10, 60_000),
            Importance.MEDIUM,
            "How often (wall clock) the outboxes' punctuation runs, in milliseconds: it emits"
                + " changed records downstream, settles the keys etcd acknowledged, and hands"
                + " the live mirror the keys its byte budget refused or a catch-up held back."
                + " While the stream is live a changed shard record goes to the mirror at once,"
                + " without waiting for it.")
        .define(
            EMIT_INTERVAL_MS,
            Type.LONG,
            1000L,
            Range.between(0, 600_000),
            Importance.MEDIUM,
            "How long a changed shard record waits before it is emitted downstream (to"
                + " demand.shard-records and the table stage), in milliseconds; its changes in"
                + " between are coalesced. Under exactly-once what is emitted becomes visible at"
                + " the next commit (kafka.commit.interval.ms, 1 s) anyway.")
        .define(
            CATCHUP_LAG_MS,
            Type.LONG,
            10_000L,
            Range.between(0, 86_400_000),
            Importance.LOW,
            "A task whose folded events are older than this on average (by their Kafka"
                + " timestamps), in milliseconds, is catching up on the log (after a restart, a new"
                + " application.id, a long outage); then a changed shard is held in its changelogged"
                + " outbox, neither emitted nor mirrored, so that each shard is emitted and written"
                + " about once for the whole catch-up instead of at every change. Once the task is"
                + " live again, has nothing left to fold, or a key has been held for"
                + " catchup.hold.max.ms, the held shards are emitted and mirrored in key order, in"
                + " full batches.")
        .define(
            CATCHUP_INTERVAL_MS,
            Type.LONG,
            5000L,
            Range.between(0, 600_000),
            Importance.LOW,
            "While catching up, how long a shard that was dirty in memory when the catch-up"
                + " began (e.g. its write in flight) waits before it is emitted and mirrored (see"
                + " catchup.lag.ms), in milliseconds; while live, the longest a changed record waits"
                + " to be emitted when emission is paced (see emit.pacing.lag.ms).")
        .define(
            CATCHUP_HOLD_MAX_MS,
            Type.LONG,
            300_000L,
            Range.between(0, 86_400_000),
            Importance.LOW,
            "While catching up, the longest a changed shard is held (see catchup.lag.ms), in"
                + " milliseconds: a key is held as long as the task is behind (the mean age of the"
                + " events it folds), at least catchup.interval.ms and at most this; once a key has"
                + " been held that long, every held shard is emitted and mirrored in one pass in key"
                + " order, and holding starts again. It bounds how far etcd and the output topics"
                + " stay behind the fold during a long catch-up; a fold that stays seconds behind a"
                + " live fleet holds its shards no longer than it is behind. 0 lets go of them at"
                + " every tick.")
        .define(
            EMIT_PACING_LAG_MS,
            Type.LONG,
            250L,
            Range.between(1, 600_000),
            Importance.LOW,
            "While the events a task folds are older than this on average when folded (by"
                + " their Kafka timestamps), in milliseconds, changed records are emitted downstream less"
                + " often: the emit interval grows from emit.interval.ms up to"
                + " catchup.interval.ms, and shrinks back once the fold keeps up; the table stage"
                + " follows it. Emitting costs the stream thread more than folding, so a busy"
                + " thread keeps up instead of falling behind. The live etcd mirror lets a key"
                + " wait as much longer as the emit interval grew, so that its etcd work, which"
                + " shares the cores, coalesces too.")
        .define(
            TABLE_INTERVAL_MS,
            Type.LONG,
            1000L,
            Range.between(10, 60_000),
            Importance.MEDIUM,
            "How often (wall clock) changed table views are emitted downstream and table"
                + " records written into etcd, in milliseconds; changes in between are"
                + " coalesced. Once no shard of a task changed for two outbox.interval.ms,"
                + " tables are written without waiting.")
        .define(
            TABLE_CACHE_SHARDS,
            Type.INT,
            50_000,
            Range.atLeast(0),
            Importance.LOW,
            "Table entries (a few dozen bytes each) the table stage keeps in memory per task,"
                + " so that a table record for etcd, or a view counted again, does not read"
                + " every shard from the store; least recently used targets go first. 0"
                + " disables.")
        .define(
            SHARD_CACHE_RECORDS,
            Type.INT,
            20_000,
            Range.atLeast(0),
            Importance.LOW,
            "Decoded shard records (about 1.3 KB each at 64 flush times) the shard stage keeps"
                + " in memory per task besides those changed since the last commit, so that a"
                + " hot shard is not decoded from its store for every event. 0 keeps only the"
                + " changed ones.")
        .define(
            LIMITS_KEYS_PER_TASK,
            Type.INT,
            1_000_000,
            Range.atLeast(1),
            Importance.LOW,
            "Most shards one task folds (a task per partition of the events topic); an event"
                + " of a new shard beyond them goes to the DLQ with reason too_many_keys. Counted"
                + " from the store's estimate at start (exact in memory, close in RocksDB).")
        .define(
            LIMITS_SHARDS_PER_TARGET,
            Type.INT,
            100_000,
            Range.atLeast(1),
            Importance.LOW,
            "Most shards of one target the table stage takes into its table view and record;"
                + " a new shard beyond them is left out of the table and its summary goes to the"
                + " DLQ with reason too_many_shards (the shard itself is still folded and"
                + " mirrored).")
        .define(
            STORES_IN_MEMORY,
            Type.BOOLEAN,
            false,
            Importance.LOW,
            "Keep the shard and table stores in memory (changelogged) instead of RocksDB.")
        .define(
            HTTP_ENABLED,
            Type.BOOLEAN,
            true,
            Importance.MEDIUM,
            "Serve the HTTP API, the dashboard and /metrics.")
        .define(
            HTTP_HOST,
            Type.STRING,
            "127.0.0.1",
            new ConfigDef.NonEmptyString(),
            Importance.MEDIUM,
            "Address the HTTP server listens on; 0.0.0.0 for every interface (in a container)."
                + " The API has no authentication: expose it to trusted networks only.")
        .define(
            HTTP_PORT,
            Type.INT,
            8080,
            Range.between(0, 65_535),
            Importance.MEDIUM,
            "Port of the HTTP server; 0: any free port. Instances tell each other this address"
                + " (Kafka Streams application.server) unless kafka.application.server is set.")
        .define(
            HTTP_ALLOWED_HOSTS,
            Type.LIST,
            "",
            Importance.LOW,
            "Host names, besides IP addresses, localhost and this instance's application.server"
                + " host, that requests may name in their Host header (e.g. a load balancer's or"
                + " a compose service's name); any other name is refused with 421, so that a web"
                + " page cannot reach the API by rebinding its own name to this address.");
  }
}
