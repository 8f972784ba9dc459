package io.demandfold.client;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.Keys;
import io.demandfold.core.SealedTimes;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.Source;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.JsonCodec;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes watermark events to {@code demand.events}, one call per source, without ever blocking
 * or throwing into the caller's hot path.
 *
 * <p>Each call builds the event with the core (key {@code <hex(target)>/<shard>}, Avro by default),
 * offers it to a bounded queue and returns at once. A background thread hands queued events to an
 * idempotent Kafka producer; at most {@code maxInFlight} events are queued or unacknowledged, and
 * an event that finds the bound full is dropped and counted: watermarks are absolute, so the next
 * flush or scan reconciles. Every event ends counted in {@code
 * demandfold_publish_total{source,result=sent|dropped|failed|timeout}}; {@code timeout} means it
 * was not acknowledged within the delivery timeout (default 15 s).
 *
 * <pre>{@code
 * try (DemandPublisher p = DemandPublisher.builder("kafka:9092").build()) {
 *   p.writerFlushed("orders", shardId, generation, bytesThrough, writerEpoch, flushedAtMs);
 *   p.executorMerged("orders", shardId, mergedThrough, writerEpoch, System.currentTimeMillis());
 * }
 * }</pre>
 *
 * <p>Why one class of this size: it is a public API: three event methods with their Javadoc, the
 * builder and its checks, and the bounded queue and sender thread that keep every call from
 * blocking.
 */
public final class DemandPublisher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DemandPublisher.class);
  private static final ProducerRecord<byte[], byte[]> STOP = new ProducerRecord<>("stop", null);
  private static final Duration PRODUCER_CLOSE_TIMEOUT = Duration.ofSeconds(15);

  /** Outcome labels of {@code demandfold_publish_total}. */
  public enum Result {
    SENT,
    DROPPED,
    FAILED,
    TIMEOUT
  }

  private final String topic;
  private final Encoding encoding;
  private final Producer<byte[], byte[]> producer;
  private final BlockingQueue<Queued> queue;
  private final java.util.concurrent.Semaphore inFlight;
  private final int maxInFlight;
  private final Map<Source, Map<Result, Counter>> counters = new EnumMap<>(Source.class);
  private final Thread sender;
  private volatile boolean closed;

  private record Queued(Source source, ProducerRecord<byte[], byte[]> record) {}

  private DemandPublisher(Builder b) {
    this.topic = b.topic;
    this.encoding = b.encoding;
    this.producer = b.producer != null ? b.producer : kafkaProducer(b);
    this.queue = new ArrayBlockingQueue<>(b.maxInFlight);
    this.inFlight = new java.util.concurrent.Semaphore(b.maxInFlight);
    this.maxInFlight = b.maxInFlight;
    for (Source s : Source.values()) {
      Map<Result, Counter> byResult = new EnumMap<>(Result.class);
      for (Result r : Result.values()) {
        byResult.put(
            r,
            Counter.builder("demandfold.publish")
                .description("events published, by source and result")
                .tag("source", s.wire())
                .tag("result", r.name().toLowerCase(java.util.Locale.ROOT))
                .register(b.registry));
      }
      counters.put(s, byResult);
    }
    this.sender = new Thread(this::sendLoop, "demandfold-publisher");
    sender.setDaemon(true);
    sender.start();
  }

  /** The idempotent producer the publisher builds when it is given none. */
  private static Producer<byte[], byte[]> kafkaProducer(Builder b) {
    Map<String, Object> p = new HashMap<>(b.kafka);
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, b.bootstrapServers);
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    // one request in flight: on a freshly created partition a broker without the fix for
    // KAFKA-15591 can reorder an idempotent producer's requests and lose one
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    int timeoutMs = (int) b.deliveryTimeout.toMillis();
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, timeoutMs);
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.max(1000, timeoutMs - 1000));
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeoutMs);
    p.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "demandfold-publisher");
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** A builder for brokers at {@code bootstrapServers}. */
  public static Builder builder(String bootstrapServers) {
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      throw new IllegalArgumentException("bootstrapServers must name at least one broker");
    }
    return new Builder(bootstrapServers, null);
  }

  /**
   * A builder that publishes through {@code producer} instead of building one: the publisher closes
   * it. Its settings are the caller's ({@link Builder#kafkaProperties} and {@link
   * Builder#deliveryTimeout} do not apply); give it idempotence and {@code acks=all}, as the
   * publisher's own producer has, and a {@link TimeoutException} when a delivery times out.
   */
  public static Builder builder(Producer<byte[], byte[]> producer) {
    return new Builder(null, Objects.requireNonNull(producer, "producer"));
  }

  /**
   * A writer flushed generation {@code sealedThrough} at {@code flushedAtMs}.
   *
   * @return whether the event was accepted (false: dropped, counted, or invalid and logged)
   */
  public boolean writerFlushed(
      String target,
      String shard,
      long sealedThrough,
      long sealedBytesThrough,
      long writerEpoch,
      long flushedAtMs) {
    return writerFlushed(
        target,
        shard,
        sealedThrough,
        sealedBytesThrough,
        writerEpoch,
        flushedAtMs,
        SealedTimes.empty());
  }

  /**
   * A writer flushed {@code sealedThrough}, also reporting the flush times of its lowest unmerged
   * generations.
   */
  public boolean writerFlushed(
      String target,
      String shard,
      long sealedThrough,
      long sealedBytesThrough,
      long writerEpoch,
      long flushedAtMs,
      SealedTimes lowestUnmerged) {
    return buildAndPublish(
        target,
        () ->
            ShardRecord.builder(shard)
                .sealedThrough(sealedThrough)
                .sealedBytesThrough(sealedBytesThrough)
                .writerEpoch(writerEpoch)
                .flushedAtMs(flushedAtMs)
                .source(Source.WRITER)
                .sealedTimes(lowestUnmerged)
                .build());
  }

  /**
   * An executor merged {@code shard} through {@code mergedThrough} (and released it) under {@code
   * writerEpoch}; it observed sealed through the same generation.
   */
  public boolean executorMerged(
      String target, String shard, long mergedThrough, long writerEpoch, long observedAtMs) {
    return buildAndPublish(
        target,
        () ->
            ShardRecord.builder(shard)
                .sealedThrough(mergedThrough)
                .mergedThrough(mergedThrough)
                .writerEpoch(writerEpoch)
                .flushedAtMs(observedAtMs)
                .source(Source.EXECUTOR)
                .build());
  }

  /**
   * A storage scan observed each shard of {@code target}: one event per shard.
   *
   * @return how many events were accepted
   */
  public int scan(String target, Map<String, ScanWatermarks> shards, long observedAtMs) {
    int accepted = 0;
    for (Map.Entry<String, ScanWatermarks> e : shards.entrySet()) {
      ScanWatermarks w = e.getValue();
      boolean ok =
          buildAndPublish(
              target,
              () -> {
                ShardRecord.Builder r =
                    ShardRecord.builder(e.getKey())
                        .sealedThrough(w.sealedThrough())
                        .sealedBytesThrough(w.sealedBytesThrough())
                        .writerEpoch(w.writerEpoch())
                        .flushedAtMs(observedAtMs)
                        .source(Source.SCAN);
                if (w.mergedThrough() != null) {
                  r.mergedThrough(w.mergedThrough());
                }
                return r.build();
              });
      accepted += ok ? 1 : 0;
    }
    return accepted;
  }

  /** What a scan saw of one shard. */
  public record ScanWatermarks(
      long sealedThrough, long sealedBytesThrough, Long mergedThrough, long writerEpoch) {}

  /** Publishes a ready event; never blocks. */
  public boolean publish(DemandEvent event) {
    Objects.requireNonNull(event, "event");
    Source source = event.record().source();
    if (closed || !inFlight.tryAcquire()) {
      counters.get(source).get(Result.DROPPED).increment();
      return false;
    }
    byte[] value =
        encoding == Encoding.AVRO ? AvroCodec.encodeEvent(event) : JsonCodec.encodeEvent(event);
    ProducerRecord<byte[], byte[]> r =
        new ProducerRecord<>(topic, event.key().getBytes(StandardCharsets.UTF_8), value);
    if (!queue.offer(new Queued(source, r))) {
      inFlight.release();
      counters.get(source).get(Result.DROPPED).increment();
      return false;
    }
    return true;
  }

  /** Builds the event of {@code target} and publishes it; an invalid event is logged, not sent. */
  private boolean buildAndPublish(String target, Supplier<ShardRecord> record) {
    DemandEvent e;
    try {
      e = new DemandEvent(target, record.get());
    } catch (InvalidEventException x) {
      log.warn(
          "not publishing an invalid event for {}: {}",
          Keys.abbreviate(String.valueOf(target)),
          x.getMessage());
      return false;
    }
    return publish(e);
  }

  private void sendLoop() {
    while (true) {
      Queued q;
      try {
        q = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      if (q.record == STOP) {
        return;
      }
      Source source = q.source;
      try {
        producer.send(
            q.record,
            (meta, e) -> {
              // count first: flush() returns once every permit is back
              Result r =
                  e == null
                      ? Result.SENT
                      : e instanceof TimeoutException ? Result.TIMEOUT : Result.FAILED;
              counters.get(source).get(r).increment();
              inFlight.release();
            });
      } catch (RuntimeException e) {
        counters
            .get(source)
            .get(e instanceof TimeoutException ? Result.TIMEOUT : Result.FAILED)
            .increment();
        inFlight.release();
      }
    }
  }

  /** Events of {@code source} that ended with {@code result} so far. */
  public long count(Source source, Result result) {
    return (long) counters.get(source).get(result).count();
  }

  /** Waits up to {@code timeout} for every accepted event to be acknowledged or to fail. */
  public boolean flush(Duration timeout) throws InterruptedException {
    if (inFlight.tryAcquire(maxInFlight, timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      inFlight.release(maxInFlight);
      return true;
    }
    return false;
  }

  /** Sends what is queued (bounded by the delivery timeout), then closes the producer. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      queue.put(new Queued(Source.WRITER, STOP));
      sender.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    producer.close(PRODUCER_CLOSE_TIMEOUT);
  }

  /** Builds a {@link DemandPublisher}. */
  public static final class Builder {
    private final String bootstrapServers;
    private final Producer<byte[], byte[]> producer;
    private String topic = "demand.events";
    private Encoding encoding = Encoding.AVRO;
    private int maxInFlight = 10_000;
    private Duration deliveryTimeout = Duration.ofSeconds(15);
    private final Map<String, Object> kafka = new HashMap<>();
    private MeterRegistry registry = new SimpleMeterRegistry();

    private Builder(String bootstrapServers, Producer<byte[], byte[]> producer) {
      this.bootstrapServers = bootstrapServers;
      this.producer = producer;
    }

    /** The events topic; default {@code demand.events}. */
    public Builder topic(String topic) {
      if (topic == null || topic.isBlank()) {
        throw new IllegalArgumentException("topic must not be empty");
      }
      this.topic = topic;
      return this;
    }

    /** Avro (default) or JSON values. */
    public Builder encoding(Encoding encoding) {
      this.encoding = Objects.requireNonNull(encoding, "encoding");
      return this;
    }

    /** Most events queued or unacknowledged before new ones are dropped; default 10,000. */
    public Builder maxInFlight(int maxInFlight) {
      if (maxInFlight < 1) {
        throw new IllegalArgumentException("maxInFlight must be at least 1, got " + maxInFlight);
      }
      this.maxInFlight = maxInFlight;
      return this;
    }

    /** How long an event may wait for its acknowledgement; default 15 s, at least 2 s. */
    public Builder deliveryTimeout(Duration timeout) {
      if (timeout == null || timeout.toMillis() < 2000) {
        throw new IllegalArgumentException("deliveryTimeout must be at least 2 s, got " + timeout);
      }
      this.deliveryTimeout = timeout;
      return this;
    }

    /** Extra Kafka producer settings (security, client id, ...). */
    public Builder kafkaProperties(Map<String, ?> properties) {
      kafka.putAll(properties);
      return this;
    }

    /** Where {@code demandfold_publish_total} is registered. */
    public Builder meterRegistry(MeterRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    public DemandPublisher build() {
      return new DemandPublisher(this);
    }
  }
}
