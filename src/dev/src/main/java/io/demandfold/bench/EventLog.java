package io.demandfold.bench;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.sim.FleetModel;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The benchmark's event stream: a {@link FleetModel}'s realistic mix on a synthetic clock,
 * deterministic for a seed, produced to a topic (three in four values Avro, one in four JSON) and
 * folded offline on the way, so that nothing but the fold is held in memory.
 */
final class EventLog {
  static final long SEED = 20261129;
  static final long START_MS = 1_764_400_000_000L;

  /** The share of events produced as JSON; the rest are Avro. */
  static final double JSON_SHARE = 0.25;

  private EventLog() {}

  /** The model that yields the stream of {@code s}. */
  static FleetModel model(BenchSettings s) {
    return new FleetModel(SEED, s.targets(), s.shardsPerTarget());
  }

  /** A producer for bulk loads: idempotent, one request in flight (see KAFKA-15591). */
  static KafkaProducer<byte[], byte[]> producer(String bootstrap, int lingerMs) {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    p.put(ProducerConfig.LINGER_MS_CONFIG, lingerMs);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
    p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 128L << 20);
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** The record of the i-th event: its key, and its value as {@link #value} encodes it. */
  static ProducerRecord<byte[], byte[]> record(String topic, DemandEvent e, long i) {
    return new ProducerRecord<>(topic, e.key().getBytes(StandardCharsets.UTF_8), value(e, i));
  }

  /** The value of the i-th event: Avro, or JSON for every fourth. */
  static byte[] value(DemandEvent e, long i) {
    return i % 4 == 3 ? JsonCodec.encodeEvent(e) : AvroCodec.encodeEvent(e);
  }

  /** Produces {@code n} events of {@code model} to {@code topic}; returns their fold. */
  static Fold produce(FleetModel model, int n, String topic, String bootstrap) {
    Fold fold = new Fold();
    AtomicReference<Exception> failure = new AtomicReference<>();
    try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap, 20)) {
      for (int i = 0; i < n; i++) {
        DemandEvent e = model.next(START_MS + i);
        fold.add(e);
        producer.send(
            record(topic, e, i),
            (m, x) -> {
              if (x != null) {
                failure.compareAndSet(null, x);
              }
            });
      }
      producer.flush();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("preloading " + topic + " failed", failure.get());
    }
    return fold;
  }
}
