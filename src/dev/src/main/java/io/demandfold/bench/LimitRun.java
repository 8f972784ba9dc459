package io.demandfold.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** (a) The limit: a plain consumer reading the whole topic, bytes only. */
final class LimitRun {
  private LimitRun() {}

  /** Events per second of a plain read of {@code topic} from the beginning to its end. */
  static double eventsPerSecond(String bootstrap, String topic, long expected) {
    Map<String, Object> p = new HashMap<>();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20);
    p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 << 20);
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (PartitionInfo i : c.partitionsFor(topic, Duration.ofSeconds(30))) {
        parts.add(new TopicPartition(topic, i.partition()));
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      long read = 0;
      long t0 = System.nanoTime();
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        read += c.poll(Duration.ofMillis(200)).count();
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      if (read < expected) {
        throw new IllegalStateException("read " + read + " events, expected " + expected);
      }
      return read / seconds;
    }
  }
}
