package io.demandfold.app;

import io.demandfold.config.DemandfoldConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * The topics demandfold needs, from {@code topology/topics.properties} (or the file named by {@code
 * topics.definitions}), and their creation at start.
 */
public final class TopicDefinitions {
  static final List<String> ROLES = List.of("events", "dlq", "shard-records", "table-demand");

  private final Map<String, NewTopic> byName;

  private TopicDefinitions(Map<String, NewTopic> byName) {
    this.byName = byName;
  }

  /** The definitions for {@code config}'s topic names. */
  public static TopicDefinitions of(DemandfoldConfig config) {
    Properties p = new Properties();
    String file = config.getString(DemandfoldConfig.TOPICS_DEFINITIONS);
    try {
      if (file == null || file.isEmpty()) {
        try (InputStream in =
            TopicDefinitions.class.getResourceAsStream("/topology/topics.properties")) {
          if (in == null) {
            throw new IllegalStateException("topology/topics.properties is missing from the jar");
          }
          p.load(in);
        }
      } else {
        try (Reader r = Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8)) {
          p.load(r);
        }
      }
    } catch (IOException e) {
      throw new ConfigException(DemandfoldConfig.TOPICS_DEFINITIONS, file, e.getMessage());
    }
    Map<String, String> names = new HashMap<>();
    names.put("events", config.getString(DemandfoldConfig.TOPICS_EVENTS));
    names.put("dlq", config.getString(DemandfoldConfig.TOPICS_DLQ));
    names.put("shard-records", config.getString(DemandfoldConfig.TOPICS_SHARD_RECORDS));
    names.put("table-demand", config.getString(DemandfoldConfig.TOPICS_TABLE_DEMAND));
    int replication = config.getInt(DemandfoldConfig.TOPICS_REPLICATION_FACTOR);
    int minIsr = config.getInt(DemandfoldConfig.TOPICS_MIN_INSYNC_REPLICAS);
    Map<String, NewTopic> out = new LinkedHashMap<>();
    for (String role : ROLES) {
      int partitions = intOf(p, role + ".partitions", 1, file);
      short rf = (short) intOf(p, role + ".replication.factor", -1, file);
      if (rf < 0) {
        rf = (short) replication;
      }
      Map<String, String> configs = new HashMap<>();
      for (String k : p.stringPropertyNames()) {
        if (k.startsWith(role + ".config.")) {
          configs.put(k.substring((role + ".config.").length()), p.getProperty(k).trim());
        }
      }
      if (minIsr > 0) {
        configs.putIfAbsent(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, String.valueOf(minIsr));
      }
      NewTopic t =
          new NewTopic(
                  names.get(role),
                  Optional.of(partitions),
                  rf < 0 ? Optional.empty() : Optional.of(rf))
              .configs(configs);
      out.put(names.get(role), t);
    }
    return new TopicDefinitions(out);
  }

  /** The definition of each topic, by name. */
  public Map<String, NewTopic> topics() {
    return byName;
  }

  /**
   * Creates the missing topics, or, when {@code create} is false, fails naming the first missing.
   */
  public void ensure(Admin admin, boolean create, long timeoutMs)
      throws InterruptedException, ExecutionException, TimeoutException {
    Set<String> existing = admin.listTopics().names().get(timeoutMs, TimeUnit.MILLISECONDS);
    List<NewTopic> missing = new ArrayList<>();
    for (NewTopic t : byName.values()) {
      if (!existing.contains(t.name())) {
        missing.add(t);
      }
    }
    if (missing.isEmpty()) {
      return;
    }
    if (!create) {
      throw new IllegalStateException(
          "topic '"
              + missing.get(0).name()
              + "' does not exist and topics.create is false; create it or set topics.create=true");
    }
    for (var e : admin.createTopics(missing).values().entrySet()) {
      try {
        e.getValue().get(timeoutMs, TimeUnit.MILLISECONDS);
      } catch (ExecutionException x) {
        if (!(x.getCause() instanceof TopicExistsException)) {
          throw new IllegalStateException(
              "cannot create topic '" + e.getKey() + "': " + x.getCause().getMessage(), x);
        }
      }
    }
    awaitLeaders(admin, missing.stream().map(NewTopic::name).toList(), timeoutMs);
  }

  /** The description of one topic, within {@code timeoutMs}. */
  static TopicDescription describe(Admin admin, String topic, long timeoutMs)
      throws InterruptedException, ExecutionException, TimeoutException {
    return admin
        .describeTopics(List.of(topic))
        .allTopicNames()
        .get(timeoutMs, TimeUnit.MILLISECONDS)
        .get(topic);
  }

  /** The setting {@code name} of {@code topic} as the brokers answer it; {@code null} if absent. */
  static ConfigEntry config(Admin admin, String topic, String name, long timeoutMs)
      throws InterruptedException, ExecutionException, TimeoutException {
    ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    return admin
        .describeConfigs(List.of(r))
        .all()
        .get(timeoutMs, TimeUnit.MILLISECONDS)
        .get(r)
        .get(name);
  }

  /**
   * Waits until every partition of {@code topics} has a leader: a topic just created is not yet in
   * every broker's metadata, and Kafka Streams stops on a source topic it cannot see.
   */
  static void awaitLeaders(Admin admin, List<String> topics, long timeoutMs)
      throws InterruptedException, ExecutionException, TimeoutException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (true) {
      try {
        var described =
            admin.describeTopics(topics).allTopicNames().get(timeoutMs, TimeUnit.MILLISECONDS);
        if (described.values().stream()
            .allMatch(d -> d.partitions().stream().allMatch(p -> p.leader() != null))) {
          return;
        }
      } catch (ExecutionException e) {
        if (!(e.getCause()
            instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)) {
          throw e;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("partitions of " + topics + " have no leader yet");
      }
      Thread.sleep(50);
    }
  }

  /**
   * Creates the misrouted topic (an internal topic of the application, created like Kafka Streams'
   * own whatever {@code topics.create} says) with the events topic's partitions, or checks that an
   * existing one has as many partitions: the shard stage reads both in one task per partition. Its
   * replication factor and {@code min.insync.replicas} are those of {@code
   * topics.replication.factor} and {@code topics.min.insync.replicas}; where these are -1, the
   * events topic's (its {@code min.insync.replicas} when the topic sets one, else the broker's).
   *
   * @param events the events topic, described once at start ({@link #describe})
   * @param eventsMinIsr the events topic's own {@code min.insync.replicas}, empty when it has none
   *     of its own or it could not be read
   * @return the events topic's partitions
   */
  static int ensureMisrouted(
      Admin admin,
      DemandfoldConfig config,
      TopicDescription events,
      OptionalInt eventsMinIsr,
      long timeoutMs)
      throws InterruptedException, ExecutionException, TimeoutException {
    String eventsTopic = events.name();
    String misroutedTopic = config.misroutedTopic();
    int partitions = events.partitions().size();
    int replication = config.getInt(DemandfoldConfig.TOPICS_REPLICATION_FACTOR);
    int minIsr = config.getInt(DemandfoldConfig.TOPICS_MIN_INSYNC_REPLICAS);
    Map<String, String> configs = new HashMap<>();
    configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE);
    configs.put(TopicConfig.RETENTION_MS_CONFIG, "-1");
    if (minIsr > 0) {
      configs.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, String.valueOf(minIsr));
    } else if (replication < 0 && eventsMinIsr.isPresent()) {
      configs.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, String.valueOf(eventsMinIsr.getAsInt()));
    }
    short replicas =
        (short) (replication > 0 ? replication : LogOfRecordCheck.replicationFactor(events));
    Set<String> existing = admin.listTopics().names().get(timeoutMs, TimeUnit.MILLISECONDS);
    if (!existing.contains(misroutedTopic)) {
      NewTopic t = new NewTopic(misroutedTopic, partitions, replicas).configs(configs);
      try {
        admin.createTopics(List.of(t)).all().get(timeoutMs, TimeUnit.MILLISECONDS);
      } catch (ExecutionException x) {
        if (!(x.getCause() instanceof TopicExistsException)) {
          throw new IllegalStateException(
              "cannot create topic '" + misroutedTopic + "': " + x.getCause().getMessage(), x);
        }
      }
      awaitLeaders(admin, List.of(misroutedTopic), timeoutMs);
      return partitions;
    }
    int theirs = describe(admin, misroutedTopic, timeoutMs).partitions().size();
    if (theirs != partitions) {
      throw new IllegalStateException(
          "topic '"
              + misroutedTopic
              + "' has "
              + theirs
              + " partitions but the events topic '"
              + eventsTopic
              + "' has "
              + partitions
              + ": the application id was built on another number of partitions; start a new"
              + " application.id, which replays the events topic (docs/operations.md: Growing the events"
              + " topic)");
    }
    return partitions;
  }

  private static int intOf(Properties p, String key, int dflt, String file) {
    String v = p.getProperty(key);
    if (v == null) {
      return dflt;
    }
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new ConfigException(
          key,
          v,
          "not an integer (in "
              + (file == null || file.isEmpty() ? "topology/topics.properties" : file)
              + ")");
    }
  }
}
