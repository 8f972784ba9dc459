package io.demandfold.ops;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.InvalidEventException.Reason;
import io.demandfold.core.Keys;
import io.demandfold.core.codec.EventDecoder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads the events topic from the beginning up to given end offsets with its own consumer (no
 * group, no committed offsets) and folds it offline with the core, rejecting exactly what the
 * pipeline dead-letters. The end offsets are those of now ({@link #endOffsets()}), of a time
 * ({@link #offsetsAt(long)}) or any the caller has.
 */
public final class LogReplay {
  private final Map<String, Object> consumerSettings;
  private final String topic;

  /** The folded log and what was rejected on the way. */
  public record Result(Fold fold, long events, Map<Reason, Long> rejected) {}

  /**
   * @param consumerSettings Kafka client settings (bootstrap servers, security)
   */
  public LogReplay(Map<String, Object> consumerSettings, String topic) {
    this.consumerSettings = consumerSettings;
    this.topic = topic;
  }

  /** The current end offset of every partition: "now". */
  public Map<TopicPartition, Long> endOffsets() {
    try (KafkaConsumer<byte[], byte[]> c = consumer()) {
      List<TopicPartition> parts = partitions(c);
      // assigned, so that the read_committed consumer can keep the stable offsets it is told
      c.assign(parts);
      return c.endOffsets(parts, Duration.ofSeconds(60));
    }
  }

  /**
   * The end offsets of the log as it was at {@code timestampMs}: per partition the first offset
   * whose record is stamped at or after that time ({@link KafkaConsumer#offsetsForTimes}), or the
   * end offset when every record is stamped before it. Everything before the returned offsets is
   * stamped before {@code timestampMs}; a record appended later with an earlier stamp (a producer
   * whose clock is behind) is after the cut.
   */
  public Map<TopicPartition, Long> offsetsAt(long timestampMs) {
    try (KafkaConsumer<byte[], byte[]> c = consumer()) {
      List<TopicPartition> parts = partitions(c);
      c.assign(parts);
      // the end first: a record stamped at or after the time that is appended between the two
      // requests must not slip in under a partition whose time request found nothing
      Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(60));
      Map<TopicPartition, Long> query = new HashMap<>();
      for (TopicPartition tp : parts) {
        query.put(tp, timestampMs);
      }
      Map<TopicPartition, OffsetAndTimestamp> found =
          c.offsetsForTimes(query, Duration.ofSeconds(60));
      Map<TopicPartition, Long> out = new HashMap<>();
      for (TopicPartition tp : parts) {
        OffsetAndTimestamp at = found.get(tp);
        out.put(tp, at == null ? end.get(tp) : Math.min(at.offset(), end.get(tp)));
      }
      return out;
    }
  }

  /**
   * Folds every record before {@code until} (partition to end offset, exclusive).
   *
   * @param progress told (records read, records remaining) as the read goes
   */
  public Result replay(Map<TopicPartition, Long> until, BiConsumer<Long, Long> progress) {
    return replay(until, null, progress);
  }

  /**
   * Folds every record before {@code until} whose key starts with {@code keyPrefix} (every record
   * when null), e.g. {@code <hex(target)>/} for the shards of one target.
   *
   * @param progress told (records read, records remaining) as the read goes
   */
  public Result replay(
      Map<TopicPartition, Long> until, String keyPrefix, BiConsumer<Long, Long> progress) {
    Fold fold = new Fold();
    Counts c = replay(until, keyPrefix, progress, (key, value, event) -> fold.add(event));
    return new Result(fold, c.events(), c.rejected());
  }

  /** Where a replay hands each valid event, with its record's key and value as read. */
  @FunctionalInterface
  public interface EventSink {
    /** Takes one valid event; {@code key} is {@code <hex>/<shard>} of the event. */
    void accept(byte[] key, byte[] value, DemandEvent event) throws IOException;
  }

  /** How many records a replay read and what it rejected on the way. */
  public record Counts(long events, Map<Reason, Long> rejected) {}

  /**
   * Hands every valid record before {@code until} whose key starts with {@code keyPrefix} (every
   * record when null) to {@code sink}, in the order read; counts the rest by reason.
   *
   * @param progress told (records read, records remaining) as the read goes
   * @throws UncheckedIOException when the sink fails
   */
  public Counts replay(
      Map<TopicPartition, Long> until,
      String keyPrefix,
      BiConsumer<Long, Long> progress,
      EventSink sink) {
    byte[] prefix = keyPrefix == null ? null : keyPrefix.getBytes(StandardCharsets.UTF_8);
    Map<Reason, Long> rejected = new EnumMap<>(Reason.class);
    long total = 0;
    for (long end : until.values()) {
      total += end;
    }
    long read = 0;
    try (KafkaConsumer<byte[], byte[]> c = consumer()) {
      List<TopicPartition> parts = new ArrayList<>(until.keySet());
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> begin = c.beginningOffsets(parts, Duration.ofSeconds(60));
      for (TopicPartition tp : parts) {
        total -= begin.get(tp);
      }
      while (true) {
        List<TopicPartition> done = new ArrayList<>();
        for (TopicPartition tp : parts) {
          if (c.position(tp, Duration.ofSeconds(60)) >= until.get(tp)) {
            done.add(tp);
          }
        }
        if (done.size() == parts.size()) {
          break;
        }
        // paused rather than unassigned: a partition read to its end fetches no more, and the
        // consumer does not warn about fetches in flight for partitions it no longer has
        c.pause(done);
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          if (r.offset() >= until.get(new TopicPartition(r.topic(), r.partition()))) {
            continue;
          }
          read++;
          if (prefix != null && !startsWith(r.key(), prefix)) {
            continue;
          }
          DemandEvent e;
          try {
            e = EventDecoder.decode(r.value());
            Keys.requireMatch(Keys.decode(r.key()), e);
          } catch (InvalidEventException x) {
            rejected.merge(x.reason(), 1L, Long::sum);
            continue;
          }
          try {
            sink.accept(r.key(), r.value(), e);
          } catch (IOException x) {
            throw new UncheckedIOException(x);
          }
        }
        progress.accept(read, Math.max(0, total - read));
      }
    }
    return new Counts(read, rejected);
  }

  private static boolean startsWith(byte[] key, byte[] prefix) {
    return key != null
        && key.length >= prefix.length
        && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
  }

  private List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> c) {
    List<PartitionInfo> infos = c.partitionsFor(topic, Duration.ofSeconds(60));
    if (infos == null || infos.isEmpty()) {
      throw new IllegalStateException("topic '" + topic + "' does not exist (topics.events)");
    }
    List<TopicPartition> out = new ArrayList<>();
    for (PartitionInfo p : infos) {
      out.add(new TopicPartition(topic, p.partition()));
    }
    return out;
  }

  private KafkaConsumer<byte[], byte[]> consumer() {
    Map<String, Object> p = new HashMap<>(consumerSettings);
    p.keySet().retainAll(ConsumerConfig.configNames());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
    p.remove(ConsumerConfig.GROUP_ID_CONFIG);
    return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }
}
