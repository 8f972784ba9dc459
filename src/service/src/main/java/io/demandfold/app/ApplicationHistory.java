package io.demandfold.app;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.stream.Names;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * What Kafka remembers of {@code application.id}, checked before the streams start:
 *
 * <ul>
 *   <li>A new id (no offsets committed on {@code topics.events}, nobody in its group) replays the
 *       events topic from the beginning. Into output topics that already hold another id's records
 *       that replay writes every shard and table back to an earlier state, then up again: refused
 *       unless {@code topics.outputs.replay=true}.
 *   <li>An id whose stores were built on another number of partitions of the events topic than it
 *       has now (the topic grew) cannot run: Kafka Streams would stop every instance. Refused with
 *       the way out: a new id.
 * </ul>
 */
final class ApplicationHistory {
  private ApplicationHistory() {}

  /**
   * @throws IllegalStateException with a one-line message naming the settings at stake
   */
  static void check(Admin admin, DemandfoldConfig config, long timeoutMs)
      throws InterruptedException, ExecutionException, TimeoutException {
    String app = config.getString(DemandfoldConfig.APPLICATION_ID);
    String events = config.getString(DemandfoldConfig.TOPICS_EVENTS);
    boolean committed = false;
    Map<TopicPartition, OffsetAndMetadata> offsets =
        admin
            .listConsumerGroupOffsets(app)
            .partitionsToOffsetAndMetadata()
            .get(timeoutMs, TimeUnit.MILLISECONDS);
    for (var e : offsets.entrySet()) {
      committed |= e.getKey().topic().equals(events) && e.getValue() != null;
    }
    if (committed) {
      requireSamePartitions(admin, app, events, timeoutMs);
      return;
    }
    if (config.getBoolean(DemandfoldConfig.TOPICS_OUTPUTS_REPLAY)
        || hasMembers(admin, app, timeoutMs)) {
      return;
    }
    for (String setting :
        List.of(DemandfoldConfig.TOPICS_SHARD_RECORDS, DemandfoldConfig.TOPICS_TABLE_DEMAND)) {
      String topic = config.getString(setting);
      if (records(admin, topic, timeoutMs) > 0) {
        throw new IllegalStateException(
            String.format(
                "application.id '%s' is new (no offsets committed on %s '%s') but %s '%s' already"
                    + " holds records of another application id: replaying the events into"
                    + " it would set every shard and table in it back before they climb again;"
                    + " start with the application.id that wrote them, point %s and %s at new"
                    + " topics, or set %s=true to replay into them anyway",
                app,
                DemandfoldConfig.TOPICS_EVENTS,
                events,
                setting,
                topic,
                DemandfoldConfig.TOPICS_SHARD_RECORDS,
                DemandfoldConfig.TOPICS_TABLE_DEMAND,
                DemandfoldConfig.TOPICS_OUTPUTS_REPLAY));
      }
    }
  }

  /** The stores of {@code app} have one partition per partition of the events topic they read. */
  private static void requireSamePartitions(Admin admin, String app, String events, long timeoutMs)
      throws InterruptedException, ExecutionException, TimeoutException {
    String changelog = app + "-" + Names.SHARD_RECORDS + "-changelog";
    Set<String> names = admin.listTopics().names().get(timeoutMs, TimeUnit.MILLISECONDS);
    if (!names.contains(changelog)) {
      return;
    }
    Map<String, TopicDescription> d =
        admin
            .describeTopics(List.of(events, changelog))
            .allTopicNames()
            .get(timeoutMs, TimeUnit.MILLISECONDS);
    int now = d.get(events).partitions().size();
    int built = d.get(changelog).partitions().size();
    if (now != built) {
      throw new IllegalStateException(
          String.format(
              "%s '%s' has %d partitions, but application.id '%s' was built on %d (its topic"
                  + " '%s'): its stores hold the shards by the old partitions, and Kafka Streams"
                  + " stops every instance; start a new application.id, which replays the grown"
                  + " topic (docs/operations.md: Growing the events topic)",
              DemandfoldConfig.TOPICS_EVENTS, events, now, app, built, changelog));
    }
  }

  /** Whether instances of {@code group} run now (a new id's first instances start together). */
  private static boolean hasMembers(Admin admin, String group, long timeoutMs)
      throws InterruptedException, ExecutionException, TimeoutException {
    try {
      var d =
          admin
              .describeConsumerGroups(List.of(group))
              .all()
              .get(timeoutMs, TimeUnit.MILLISECONDS)
              .get(group);
      return d != null && !d.members().isEmpty();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof GroupIdNotFoundException) {
        return false;
      }
      throw e;
    }
  }

  /** Committed records (and transaction markers) between the first and the last stable offset. */
  private static long records(Admin admin, String topic, long timeoutMs)
      throws InterruptedException, ExecutionException, TimeoutException {
    TopicDescription d = TopicDefinitions.describe(admin, topic, timeoutMs);
    Map<TopicPartition, OffsetSpec> first = new HashMap<>();
    Map<TopicPartition, OffsetSpec> last = new HashMap<>();
    d.partitions()
        .forEach(
            p -> {
              TopicPartition tp = new TopicPartition(topic, p.partition());
              first.put(tp, OffsetSpec.earliest());
              last.put(tp, OffsetSpec.latest());
            });
    ListOffsetsOptions committed = new ListOffsetsOptions(IsolationLevel.READ_COMMITTED);
    var from = admin.listOffsets(first, committed).all().get(timeoutMs, TimeUnit.MILLISECONDS);
    var to = admin.listOffsets(last, committed).all().get(timeoutMs, TimeUnit.MILLISECONDS);
    long n = 0;
    for (TopicPartition tp : from.keySet()) {
      n += Math.max(0, to.get(tp).offset() - from.get(tp).offset());
    }
    return n;
  }
}
