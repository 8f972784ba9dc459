package io.demandfold.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The part of (d)'s latency that is Kafka's alone: a plain consumer beside the pipeline reads the
 * events topic from its end and takes, for every record, the time from its producer timestamp to
 * its arrival (milliseconds, one clock). What the pipeline adds is the rest.
 */
final class KafkaLatency implements AutoCloseable {
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Thread thread;
  private final long[] samples = new long[1 << 22];
  private volatile boolean running = true;
  private int n;

  KafkaLatency(String bootstrap, String topic) {
    Map<String, Object> p = new HashMap<>();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    List<TopicPartition> parts = new ArrayList<>();
    for (PartitionInfo i : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
      parts.add(new TopicPartition(topic, i.partition()));
    }
    consumer.assign(parts);
    consumer.seekToEnd(parts);
    parts.forEach(consumer::position);
    thread = new Thread(this::run, "bench-kafka-latency");
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    while (running) {
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
        long ms = System.currentTimeMillis() - r.timestamp();
        synchronized (this) {
          if (n < samples.length) {
            samples[n++] = ms;
          }
        }
      }
    }
    consumer.close(Duration.ofSeconds(5));
  }

  /** p50, p99 and max in milliseconds of the records read since the last call, and forgets them. */
  synchronized double[] takeQuantiles() {
    long[] s = Arrays.copyOf(samples, n);
    n = 0;
    if (s.length == 0) {
      return new double[] {Double.NaN, Double.NaN, Double.NaN};
    }
    Arrays.sort(s);
    return new double[] {
      s[(int) Math.ceil(s.length * 0.5) - 1],
      s[(int) Math.ceil(s.length * 0.99) - 1],
      s[s.length - 1]
    };
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.join(10_000);
  }
}
