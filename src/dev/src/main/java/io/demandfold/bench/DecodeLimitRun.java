package io.demandfold.bench;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Keys;
import io.demandfold.core.codec.EventDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * (a2) The fair limit: a consumer in a consumer group, with the consumer settings the pipeline's
 * Kafka Streams would use (read_committed, its poll sizes, any {@code kafka.*} override), that
 * decodes every event with the project's decoder, checks its key, and does nothing else.
 */
final class DecodeLimitRun {
  private DecodeLimitRun() {}

  /**
   * Events per second decoded from the first poll that returned records until the end of the topic.
   */
  static double eventsPerSecond(DemandfoldConfig config, String topic, long expected) {
    Map<String, Object> p =
        new StreamsConfig(streamsProperties(config))
            .getMainConsumerConfigs("bench-decode-limit", "bench-decode-limit", 0);
    p.keySet().retainAll(ConsumerConfig.configNames());
    p.remove(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      AtomicBoolean assigned = new AtomicBoolean();
      c.subscribe(
          List.of(topic),
          new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(java.util.Collection<TopicPartition> parts) {}

            @Override
            public void onPartitionsAssigned(java.util.Collection<TopicPartition> parts) {
              assigned.set(true);
            }
          });
      long read = 0;
      long checksum = 0;
      long t0 = 0;
      long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
      while (read < expected) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("decoded " + read + " events of " + expected);
        }
        ConsumerRecords<byte[], byte[]> records = c.poll(Duration.ofMillis(200));
        if (t0 == 0 && !records.isEmpty()) {
          t0 = System.nanoTime();
        }
        for (ConsumerRecord<byte[], byte[]> r : records) {
          DemandEvent e = EventDecoder.decode(r.value());
          Keys.requireMatch(new String(r.key(), StandardCharsets.UTF_8), e);
          checksum += e.record().sealedThrough();
          read++;
        }
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      if (checksum < 0 || !assigned.get()) {
        throw new IllegalStateException("the decode run saw no assignment");
      }
      return read / seconds;
    }
  }

  private static Map<String, Object> streamsProperties(DemandfoldConfig config) {
    Map<String, Object> p = new java.util.HashMap<>(config.kafkaSettings());
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "bench-decode-limit");
    p.put(
        StreamsConfig.BOOTSTRAP_SERVERS_CONFIG,
        config.getString(DemandfoldConfig.BOOTSTRAP_SERVERS));
    return p;
  }
}
