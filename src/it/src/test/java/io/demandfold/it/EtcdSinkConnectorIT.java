package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Events;
import io.demandfold.core.Fold;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.JsonCodec;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import javax.management.ObjectName;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The etcd sink in a real Connect worker, against a real broker and a real etcd. */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class EtcdSinkConnectorIT {
  private static final String SINK = "io.demandfold.connect.EtcdSinkConnector";

  @RegisterExtension
  static final ConnectWorkerExtension connect = ConnectWorkerExtension.named("sink-worker");

  private static ConnectWorker worker() {
    return connect.worker();
  }

  /** The shipped sink config, pointed at this test's etcd prefix and topics. */
  private static Map<String, String> sink(Services services, Harness target, String topic)
      throws Exception {
    return ConnectWorker.shipped(
        "etcd-sink.json",
        Map.of(
            "topics",
            topic,
            "etcd.endpoints",
            services.etcdEndpoint(),
            "etcd.prefix",
            target.prefix,
            "errors.deadletterqueue.topic.name",
            target.name + ".connect-dlq",
            "errors.deadletterqueue.topic.replication.factor",
            "1",
            "consumer.override.max.poll.records",
            "500"));
  }

  @Test
  void shouldMirrorTheShardRecordsTopicByteForByteAsThePipelineDoes(Services services)
      throws Exception {
    try (Harness pipeline = new Harness(services, "sink-pipe");
        Harness mirrored = new Harness(services, "sink-copy")) {
      Random rnd = new Random(41);
      List<DemandEvent> events = new ArrayList<>();
      for (String line : Files.readAllLines(Path.of("examples/named-cases.jsonl"))) {
        events.add(JsonCodec.decodeEvent(line.getBytes(StandardCharsets.UTF_8)));
      }
      for (int i = 0; i < 4; i++) {
        events.addAll(RandomStreams.stream(rnd, "s" + i, 3, 15, 400));
      }
      Fold expected = Harness.fold(events);
      pipeline.start();
      worker().create(mirrored.name, sink(services, mirrored, pipeline.name + ".shard-records"));
      pipeline.produce(events, rnd);

      pipeline.awaitEtcd(expected);
      mirrored.awaitEtcd(expected);
      Map<String, String> fromPipeline = new LinkedHashMap<>();
      pipeline
          .etcdState()
          .forEach((k, v) -> fromPipeline.put(k.substring(pipeline.prefix.length()), v));
      Map<String, String> fromSink = new LinkedHashMap<>();
      mirrored
          .etcdState()
          .forEach((k, v) -> fromSink.put(k.substring(mirrored.prefix.length()), v));
      assertThat(fromSink).isEqualTo(fromPipeline).hasSizeGreaterThan(60);
      worker().delete(mirrored.name);
    }
  }

  @Test
  void shouldFoldEventsPerBatchNeverLowerNorOverwriteANewerSchemaAndDeadLetterBadRecords(
      Services services) throws Exception {
    try (Harness h = new Harness(services, "sink-events")) {
      services.createTopic(h.eventsTopic, 3);
      Random rnd = new Random(43);
      List<DemandEvent> events = RandomStreams.stream(rnd, "e", 3, 30, 3000);

      // another writer got further on one shard, and a newer writer owns another
      ShardRecord ahead =
          Events.fold(
              Events.writer("ahead", 90, 2, 90_000), Events.executor("ahead", 90, 85, 2, 90_500));
      String aheadKey = h.layout().shardKey(Keys.shardKey("e-table-0", "ahead"));
      String newerKey = h.layout().shardKey(Keys.shardKey("e-table-1", "newer"));
      byte[] newer = "{\"v\":2,\"shard\":\"newer\",\"sealed_through\":1}".getBytes();
      put(services, aheadKey, JsonCodec.encodeRecord(ahead));
      put(services, newerKey, newer);
      List<DemandEvent> lower = new ArrayList<>();
      for (int g = 1; g <= 5; g++) {
        lower.add(new DemandEvent("e-table-0", Events.executor("ahead", 80 + g, 70, 1, g)));
        lower.add(new DemandEvent("e-table-1", Events.writer("newer", g, 1, g * 1000L)));
      }
      List<DemandEvent> valid = new ArrayList<>(events);
      valid.addAll(lower);
      h.produce(valid, rnd);
      byte[] k = Keys.shardKey("e-table-0", "shard-0").getBytes(StandardCharsets.UTF_8);
      List<byte[][]> bad =
          List.of(
              new byte[][] {k, "garbage".getBytes()},
              new byte[][] {null, JsonCodec.encodeEvent(events.get(0))},
              new byte[][] {"6f/s".getBytes(), JsonCodec.encodeEvent(events.get(0))},
              new byte[][] {
                k, "{\"v\":9,\"target\":\"e-table-0\",\"shard\":\"shard-0\"}".getBytes()
              });
      for (byte[][] b : bad) {
        h.produceRaw(b[0], b[1]);
      }
      h.flush();
      long aheadRevision = kv(services, aheadKey).getModRevision();
      long before = revision(services);

      Map<String, String> config = new LinkedHashMap<>(sink(services, h, h.eventsTopic));
      config.put("demandfold.input", "events");
      worker().create(h.name, config);

      Fold expected = Harness.fold(valid);
      expected.add("e-table-0", ahead);
      Map<String, String> want = Harness.expectedEtcd(expected, h.layout());
      want.put(newerKey, new String(newer, StandardCharsets.UTF_8));
      h.awaitEtcdHolds(want);
      assertThat(h.etcdState()).as("nothing else in etcd").isEqualTo(want);
      assertThat(kv(services, aheadKey).getModRevision())
          .as("a lower event writes nothing")
          .isEqualTo(aheadRevision);
      long writes = revision(services) - before;
      assertThat(writes)
          .as("etcd writes for %d events of %d shards", valid.size(), expected.shardCount())
          .isLessThan(valid.size() / 5);

      List<ConsumerRecord<byte[], byte[]>> dead =
          Harness.awaitRecords(services, h.name + ".connect-dlq", 4);
      assertThat(dead).hasSize(bad.size());
      assertThat(dead)
          .map(r -> header(r, "__connect.errors.exception.message"))
          .anyMatch(m -> m.startsWith("undecodable"))
          .anyMatch(m -> m.startsWith("null_key"))
          .anyMatch(m -> m.startsWith("key_mismatch"))
          .anyMatch(m -> m.startsWith("unknown_version: unknown schema version 9"));
      worker().delete(h.name);
    }
  }

  @Test
  void shouldRetryThroughAnEtcdOutageWithoutLosingRecords(Services services) throws Exception {
    try (Harness h = new Harness(services, "sink-outage")) {
      services.createTopic(h.eventsTopic, 2);
      Random rnd = new Random(47);
      List<DemandEvent> events = RandomStreams.stream(rnd, "o", 2, 10, 600);
      Map<String, String> config = new LinkedHashMap<>(sink(services, h, h.eventsTopic));
      config.put("demandfold.input", "events");
      config.put("etcd.request.timeout.ms", "1000");
      config.put("etcd.retry.backoff.ms", "200");
      config.put("etcd.retry.backoff.max.ms", "1000");
      worker().create(h.name, config);
      h.produce(events.subList(0, 200), rnd);
      h.awaitEtcd(Harness.fold(events.subList(0, 200)));

      services.etcd().stop();
      try {
        h.produce(events.subList(200, events.size()), rnd);
        // the task hands its batch back again and again while etcd is away, and stays RUNNING
        Harness.await(
            "the sink task to hand its batch back 3 times without etcd",
            () -> {
              try {
                return redeliveries(h.name);
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            n -> n >= 3,
            Harness.PATIENCE);
        assertThat(worker().state(h.name)).as("the task waits for etcd").isEqualTo("RUNNING");
      } finally {
        services.etcd().restart();
      }
      h.awaitEtcd(Harness.fold(events));
      assertThat(worker().state(h.name)).isEqualTo("RUNNING");
      worker().delete(h.name);
    }
  }

  @Test
  void shouldRejectBadSettingsNamingEachOne(Services services) throws Exception {
    Map<String, String> config =
        ConnectWorker.shipped(
            "etcd-sink.json",
            Map.of(
                "name", "rejected",
                "etcd.endpoints", "127.0.0.1:2379",
                "etcd.prefix", "demandfold",
                "demandfold.input", "tables",
                "mirror.concurrency", "0",
                "value.converter", "org.apache.kafka.connect.json.JsonConverter"));
    Map<String, String> errors = worker().validate(SINK, config);
    assertThat(errors)
        .containsOnlyKeys(
            "etcd.endpoints", "etcd.prefix", "demandfold.input", "mirror.concurrency");
    errors.forEach((name, message) -> assertThat(message).contains(name));
    assertThat(errors.get("etcd.endpoints")).contains("expected http://host:port");

    Map<String, String> converter =
        ConnectWorker.shipped(
            "etcd-sink.json",
            Map.of(
                "etcd.endpoints",
                services.etcdEndpoint(),
                "value.converter",
                "org.apache.kafka.connect.json.JsonConverter"));
    assertThat(worker().validate(SINK, converter).get("value.converter"))
        .contains("org.apache.kafka.connect.converters.ByteArrayConverter");
    var created =
        worker()
            .send(
                "POST",
                "/connectors",
                new com.fasterxml.jackson.databind.ObjectMapper()
                    .writeValueAsString(Map.of("name", "rejected", "config", config)));
    assertThat(created.statusCode()).isEqualTo(400);
    assertThat(created.body()).contains("etcd.prefix");
  }

  @Test
  void shouldLoadFromAPluginThatLeavesOutWhatConnectProvides() throws Exception {
    Path dir = ConnectWorker.PLUGIN_PATH.resolve("demandfold-connect");
    List<String> jars;
    try (Stream<Path> files = Files.list(dir)) {
      jars =
          files
              .map(p -> p.getFileName().toString())
              .filter(n -> n.endsWith(".jar"))
              .map(n -> n.replaceAll("-[0-9][^-]*(-SNAPSHOT|-jre|\\.Final)?\\.jar$", ""))
              .sorted()
              .toList();
    }
    assertThat(jars)
        .contains("demandfold-connect", "demandfold-core", "demandfold-mirror")
        .contains("jetcd-core", "grpc-netty", "netty-handler", "guava", "avro")
        .contains("jackson-databind", "jackson-annotations", "micrometer-core", "vertx-core")
        .noneMatch(n -> n.startsWith("kafka") || n.startsWith("connect-"))
        .noneMatch(n -> n.startsWith("slf4j") || n.startsWith("logback"))
        .noneMatch(n -> n.startsWith("scala") || n.startsWith("rocksdb") || n.equals("picocli"))
        .noneMatch(n -> n.equals("demandfold-service") || n.startsWith("jetty"));
    try (ZipFile zip = new ZipFile(Build.CONNECT_PLUGIN_ZIP.toFile())) {
      assertThat(zip.getEntry("demandfold-connect/etc/etcd-sink.json")).isNotNull();
      assertThat(zip.stream().filter(e -> e.getName().endsWith(".jar")).count())
          .isEqualTo(jars.size());
    }
    // the worker reports the jar's version: it loaded the connectors from the plugin, isolated
    Map<String, String> versions = new LinkedHashMap<>();
    for (var p : worker().get("/connector-plugins")) {
      versions.put(p.path("class").asText(), p.path("version").asText());
    }
    assertThat(versions)
        .containsEntry(SINK, "0.1.0-SNAPSHOT")
        .containsEntry("io.demandfold.connect.EtcdSourceConnector", "0.1.0-SNAPSHOT");
  }

  private static void put(Services services, String key, byte[] value) throws Exception {
    services
        .etcdClient()
        .getKVClient()
        .put(ByteSequence.from(key, StandardCharsets.UTF_8), ByteSequence.from(value))
        .get(10, TimeUnit.SECONDS);
  }

  private static KeyValue kv(Services services, String key) throws Exception {
    return services
        .etcdClient()
        .getKVClient()
        .get(ByteSequence.from(key, StandardCharsets.UTF_8))
        .get(10, TimeUnit.SECONDS)
        .getKvs()
        .get(0);
  }

  /** etcd's current revision. */
  static long revision(Services services) throws Exception {
    return services
        .etcdClient()
        .getKVClient()
        .get(ByteSequence.from("/", StandardCharsets.UTF_8))
        .get(10, TimeUnit.SECONDS)
        .getHeader()
        .getRevision();
  }

  /** The sink task's {@code redeliveries-total}, as the worker publishes it over JMX. */
  private static long redeliveries(String connector) throws Exception {
    var server = ManagementFactory.getPlatformMBeanServer();
    for (ObjectName n : server.queryNames(new ObjectName("kafka.connect:type=plugins,*"), null)) {
      if (connector.equals(n.getKeyProperty("connector"))) {
        try {
          return ((Number) server.getAttribute(n, "redeliveries-total")).longValue();
        } catch (javax.management.AttributeNotFoundException e) {
          // another metric of the task
        }
      }
    }
    throw new AssertionError("no plugin metrics of " + connector);
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    var h = r.headers().lastHeader(name);
    return h == null ? "" : new String(h.value(), StandardCharsets.UTF_8);
  }
}
