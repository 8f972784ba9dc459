package io.demandfold.examples;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TableJoined;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A Kafka Streams application that keeps the maintenance backlog per team: it joins the compacted
 * {@code demand.table-demand} (key {@code <hex(target)>}, value the table line) with a compacted
 * topic of owners (key the table name, value the team, both plain UTF-8; a null value: no owner)
 * and sums, per team, the pending generations and bytes of the tables it owns. Both inputs are
 * tables: a new demand, a new owner or a deleted owner moves the sums at once.
 *
 * <pre>{@code
 * StreamsBuilder builder = new StreamsBuilder();
 * OwnerBacklog.buildTopology(builder, OwnerBacklog.Topics.DEFAULT);
 * new KafkaStreams(builder.build(), props).start();
 * }</pre>
 *
 * <p>Output (compacted): key the team, value {@code
 * {"team":T,"tables":K,"pending_generations":N,"pending_bytes":B}}, over the {@code K} owned tables
 * that have a demand record; a tombstone once a team owns none.
 */
public final class OwnerBacklog {
  // names of the processors, stores and repartition topic: part of the upgrade contract
  static final String READ_DEMAND = "read-table-demand";
  static final String DEMAND_STORE = "table-demand";
  static final String READ_OWNERS = "read-table-owners";
  static final String OWNERS_STORE = "table-owners";
  static final String JOIN_OWNER = "join-owner";
  static final String OWNED_STORE = "owned-demand";
  static final String BY_TEAM = "by-team";
  static final String SUM_PER_TEAM = "sum-per-team";
  static final String BACKLOG_STORE = "team-backlog";
  static final String CHANGES = "team-backlog-changes";
  static final String DROP_EMPTY = "drop-empty-teams";
  static final String WRITE_BACKLOG = "write-team-backlog";

  private static final ObjectMapper JSON = new ObjectMapper();

  private OwnerBacklog() {}

  /** The topics the application reads and writes. */
  public record Topics(String tableDemand, String owners, String backlog) {
    public static final Topics DEFAULT =
        new Topics("demand.table-demand", "table-owners", "team-backlog");
  }

  /** What the join needs of a table line. */
  record TableDemand(String target, long pendingGenerations, long pendingBytes) {

    static TableDemand parse(String tableLine) {
      try {
        JsonNode n = JSON.readTree(tableLine);
        return new TableDemand(
            n.path("target").asText(),
            n.path("pending_generations").asLong(),
            n.path("pending_bytes").asLong());
      } catch (IOException e) {
        throw new UncheckedIOException("not a table line: " + tableLine, e);
      }
    }
  }

  /** The demand of one owned table, with its team. */
  record OwnedDemand(
      @JsonProperty("team") String team,
      @JsonProperty("pending_generations") long pendingGenerations,
      @JsonProperty("pending_bytes") long pendingBytes) {}

  /** The backlog of one team: the value of the output topic. */
  public record TeamBacklog(
      @JsonProperty("team") String team,
      @JsonProperty("tables") long tables,
      @JsonProperty("pending_generations") long pendingGenerations,
      @JsonProperty("pending_bytes") long pendingBytes) {

    static TeamBacklog empty() {
      return new TeamBacklog(null, 0, 0, 0);
    }

    TeamBacklog plus(String team, OwnedDemand d) {
      return new TeamBacklog(
          team,
          tables + 1,
          pendingGenerations + d.pendingGenerations(),
          pendingBytes + d.pendingBytes());
    }

    TeamBacklog minus(String team, OwnedDemand d) {
      return new TeamBacklog(
          team,
          tables - 1,
          pendingGenerations - d.pendingGenerations(),
          pendingBytes - d.pendingBytes());
    }

    /** Reads an output value. */
    public static TeamBacklog parse(byte[] json) {
      return new JsonSerde<>(TeamBacklog.class).deserializer().deserialize(null, json);
    }
  }

  /**
   * Adds the application to {@code builder}: demand (by hex) joined on its {@code target} with the
   * owners (by table name) in a foreign-key join, so the owners topic needs neither the hex keys
   * nor the partitions of {@code demand.table-demand}; then grouped by team and summed.
   */
  public static void buildTopology(StreamsBuilder builder, Topics topics) {
    KTable<String, String> demand =
        builder.table(
            topics.tableDemand(),
            Consumed.with(Serdes.String(), Serdes.String()).withName(READ_DEMAND),
            Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as(DEMAND_STORE)
                .withKeySerde(Serdes.String())
                .withValueSerde(Serdes.String()));
    KTable<String, String> owners =
        builder.table(
            topics.owners(),
            Consumed.with(Serdes.String(), Serdes.String()).withName(READ_OWNERS),
            Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as(OWNERS_STORE)
                .withKeySerde(Serdes.String())
                .withValueSerde(Serdes.String()));
    demand
        .join(
            owners,
            line -> TableDemand.parse(line).target(),
            (line, team) -> {
              TableDemand d = TableDemand.parse(line);
              return new OwnedDemand(team, d.pendingGenerations(), d.pendingBytes());
            },
            TableJoined.as(JOIN_OWNER),
            Materialized.<String, OwnedDemand, KeyValueStore<Bytes, byte[]>>as(OWNED_STORE)
                .withKeySerde(Serdes.String())
                .withValueSerde(new JsonSerde<>(OwnedDemand.class)))
        .groupBy(
            (hex, d) -> KeyValue.pair(d.team(), d),
            Grouped.with(BY_TEAM, Serdes.String(), new JsonSerde<>(OwnedDemand.class)))
        .aggregate(
            TeamBacklog::empty,
            (team, d, backlog) -> backlog.plus(team, d),
            (team, d, backlog) -> backlog.minus(team, d),
            Named.as(SUM_PER_TEAM),
            Materialized.<String, TeamBacklog, KeyValueStore<Bytes, byte[]>>as(BACKLOG_STORE)
                .withKeySerde(Serdes.String())
                .withValueSerde(new JsonSerde<>(TeamBacklog.class)))
        .toStream(Named.as(CHANGES))
        .mapValues(b -> b == null || b.tables() == 0 ? null : b, Named.as(DROP_EMPTY))
        .to(
            topics.backlog(),
            Produced.with(Serdes.String(), new JsonSerde<>(TeamBacklog.class))
                .withName(WRITE_BACKLOG));
  }

  /**
   * {@code OwnerBacklog --bootstrap-servers HOST:PORT [--table-demand T] [--owners T] [--output T]
   * [--application-id ID] [--state-dir DIR]}: creates the owners and output topics (compacted) when
   * missing, then runs until Ctrl-C or SIGTERM.
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> flags = flags(args);
    Topics topics =
        new Topics(
            flags.getOrDefault("--table-demand", Topics.DEFAULT.tableDemand()),
            flags.getOrDefault("--owners", Topics.DEFAULT.owners()),
            flags.getOrDefault("--output", Topics.DEFAULT.backlog()));
    Properties props = new Properties();
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, flags.get("--bootstrap-servers"));
    props.put(
        StreamsConfig.APPLICATION_ID_CONFIG,
        flags.getOrDefault("--application-id", "owner-backlog"));
    // without --state-dir: a fresh directory, deleted at the end (the state is rebuilt from the
    // changelogs at the next start)
    Path tempState =
        flags.containsKey("--state-dir") ? null : Files.createTempDirectory("owner-backlog-");
    props.put(
        StreamsConfig.STATE_DIR_CONFIG,
        tempState == null ? flags.get("--state-dir") : tempState.toString());
    createCompacted(props, List.of(topics.owners(), topics.backlog()));
    StreamsBuilder builder = new StreamsBuilder();
    buildTopology(builder, topics);
    KafkaStreams streams = new KafkaStreams(builder.build(), settings(props));
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  streams.close(Duration.ofSeconds(30));
                  if (tempState != null) {
                    streams.cleanUp();
                    deleteTree(tempState);
                  }
                  stopped.countDown();
                }));
    streams.start();
    System.out.printf(
        "joining %s with %s into %s; Ctrl-C stops%n",
        topics.tableDemand(), topics.owners(), topics.backlog());
    stopped.await();
  }

  /**
   * The Streams settings of the application: {@code props} with exactly-once processing, which also
   * reads only committed records of demandfold's transactional output.
   */
  public static Properties settings(Properties props) {
    Properties p = new Properties();
    p.putAll(props);
    p.putIfAbsent(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    return p;
  }

  /** Creates each of {@code topics} that is missing, compacted, with the broker's defaults. */
  public static void createCompacted(Properties props, List<String> topics)
      throws InterruptedException {
    Properties admin = new Properties();
    admin.put(
        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
        props.get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG));
    try (Admin a = Admin.create(admin)) {
      for (String topic : topics) {
        NewTopic t =
            new NewTopic(topic, Optional.empty(), Optional.empty())
                .configs(
                    Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
        try {
          a.createTopics(Set.of(t)).all().get();
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw new IllegalStateException("cannot create topic " + topic, e.getCause());
          }
        }
      }
    }
  }

  /** Deletes {@code dir} and everything below it, as far as it can. */
  public static void deleteTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      System.err.println("cannot delete " + dir + ": " + e.getMessage());
    }
  }

  private static Map<String, String> flags(String[] args) {
    Map<String, String> out = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 == args.length) {
        throw new IllegalArgumentException("expected --flag VALUE pairs, got '" + args[i] + "'");
      }
      out.put(args[i], args[++i]);
    }
    if (!out.containsKey("--bootstrap-servers")) {
      throw new IllegalArgumentException("--bootstrap-servers HOST:PORT is required");
    }
    return out;
  }
}
