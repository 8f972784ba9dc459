package io.demandfold.cli;

import io.demandfold.client.Encoding;
import io.demandfold.config.DemandfoldConfig;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.SealedTimes;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.Source;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.JsonCodec;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code demandfold publish}: one event from flags or JSON on stdin. */
@Command(
    name = "publish",
    mixinStandardHelpOptions = true,
    description = {
      "Publishes one event to the events topic, built from flags or read as JSON from stdin"
          + " (--stdin), and waits for the broker's acknowledgement.",
      "Exit status: 0 acknowledged, 1 not acknowledged, 2 a bad flag or event."
    })
final class PublishCommand implements Callable<Integer> {
  @Mixin SettingsOptions settings;

  @Option(names = "--stdin", description = "Read one JSON event (with its target) from stdin.")
  boolean stdin;

  @Option(names = "--target", paramLabel = "TABLE", description = "The table.")
  String target;

  @Option(names = "--shard", paramLabel = "ID", description = "The shard.")
  String shard;

  @Option(
      names = "--source",
      paramLabel = "writer|executor|scan",
      description = "Who publishes (default writer).")
  String source = "writer";

  @Option(
      names = "--sealed-through",
      paramLabel = "GEN",
      description = "Highest sealed generation.")
  Long sealedThrough;

  @Option(names = "--sealed-bytes-through", paramLabel = "BYTES", description = "Default 0.")
  long sealedBytes;

  @Option(
      names = "--merged-through",
      paramLabel = "GEN",
      description = "Highest merged generation.")
  Long mergedThrough;

  @Option(names = "--merged-epoch", paramLabel = "EPOCH", description = "Epoch of merged.")
  Long mergedEpoch;

  @Option(names = "--writer-epoch", paramLabel = "EPOCH", description = "Default 1.")
  long writerEpoch = 1;

  @Option(
      names = "--flushed-at-ms",
      paramLabel = "MS",
      description = "Flush (or observation) time, epoch ms; default now.")
  Long flushedAtMs;

  @Option(
      names = "--sealed-time",
      paramLabel = "GEN=MS",
      description = "Flush time of an unmerged generation; repeatable.")
  Map<Long, Long> sealedTimes = new LinkedHashMap<>();

  @Option(
      names = "--encoding",
      paramLabel = "avro|json",
      defaultValue = "avro",
      description = "Value encoding (default avro).")
  Encoding encoding;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    DemandfoldConfig config = settings.load(Map.of()).requireKafka();
    DemandEvent event;
    try {
      event = stdin ? fromStdin() : fromFlags();
    } catch (InvalidEventException e) {
      spec.commandLine().getErr().println("demandfold publish: bad event: " + e.getMessage());
      return Main.EXIT_BAD_SETTING;
    }
    byte[] value =
        encoding == Encoding.AVRO ? AvroCodec.encodeEvent(event) : JsonCodec.encodeEvent(event);
    Map<String, Object> p = config.kafkaClientSettings();
    p.keySet().retainAll(ProducerConfig.configNames());
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 25_000);
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
    String topic = config.getString(DemandfoldConfig.TOPICS_EVENTS);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      RecordMetadata m =
          producer
              .send(
                  new ProducerRecord<>(topic, event.key().getBytes(StandardCharsets.UTF_8), value))
              .get(35, TimeUnit.SECONDS);
      spec.commandLine()
          .getOut()
          .printf(
              "published %s to %s-%d at offset %d%n",
              event.key(), topic, m.partition(), m.offset());
      return 0;
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      spec.commandLine()
          .getErr()
          .println(
              "demandfold publish: not acknowledged by "
                  + config.getString(DemandfoldConfig.BOOTSTRAP_SERVERS)
                  + ": "
                  + (e.getCause() == null ? e : e.getCause().getMessage()));
      return 1;
    }
  }

  private void requireFlag(String flag, Object value) {
    if (value == null) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "missing " + flag + " (or give the event as JSON with --stdin)");
    }
  }

  private DemandEvent fromStdin() throws java.io.IOException {
    if (target != null || shard != null || sealedThrough != null) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--stdin reads the whole event; do not combine it with event flags");
    }
    byte[] json = System.in.readAllBytes();
    return JsonCodec.decodeEvent(json);
  }

  private DemandEvent fromFlags() {
    requireFlag("--target", target);
    requireFlag("--shard", shard);
    requireFlag("--sealed-through", sealedThrough);
    Source s = Source.fromWire(source);
    if (s == null) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--source must be writer, executor or scan, got '" + source + "'");
    }
    SealedTimes.Builder times = new SealedTimes.Builder();
    sealedTimes.forEach(times::put);
    ShardRecord.Builder b =
        ShardRecord.builder(shard)
            .sealedThrough(sealedThrough)
            .sealedBytesThrough(sealedBytes)
            .writerEpoch(writerEpoch)
            .flushedAtMs(flushedAtMs == null ? System.currentTimeMillis() : flushedAtMs)
            .source(s)
            .sealedTimes(times.build())
            .mergedThrough(mergedThrough)
            .mergedEpoch(mergedEpoch);
    return new DemandEvent(target, b.build());
  }
}
