package io.demandfold.bench;

import io.demandfold.mirror.EtcdLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Bytes;

/** What the state of a run takes: in etcd, in changelogs once compacted, on local disk. */
final class StoreSizes {
  private StoreSizes() {}

  /** Keys and bytes (keys, values) under a prefix, for the shard records and the table records. */
  record Etcd(
      long shardKeys,
      long shardKeyBytes,
      long shardValueBytes,
      long tableKeys,
      long tableKeyBytes,
      long tableValueBytes) {
    long keys() {
      return shardKeys + tableKeys;
    }

    long bytes() {
      return shardKeyBytes + shardValueBytes + tableKeyBytes + tableValueBytes;
    }
  }

  /**
   * The sizes of {@code values} (full key to value, e.g. an etcd snapshot) under {@code layout}.
   */
  static Etcd etcd(Map<String, byte[]> values, EtcdLayout layout) {
    long[] a = new long[6];
    for (Map.Entry<String, byte[]> e : values.entrySet()) {
      int k = e.getKey().getBytes(StandardCharsets.UTF_8).length;
      int v = e.getValue().length;
      if (e.getKey().startsWith(layout.shardRecordsPrefix())) {
        a[0]++;
        a[1] += k;
        a[2] += v;
      } else if (e.getKey().startsWith(layout.tableRecordsPrefix())) {
        a[3]++;
        a[4] += k;
        a[5] += v;
      }
    }
    return new Etcd(a[0], a[1], a[2], a[3], a[4], a[5]);
  }

  /**
   * The bytes a compacted topic would keep: the key and value of the last record of each key, no
   * key whose last record is a tombstone. Not thread-safe.
   */
  static final class Live {
    private final Map<Bytes, Integer> sizes = new HashMap<>();
    private long bytes;

    /** A record; {@code value == null} is a tombstone. */
    void add(byte[] key, byte[] value) {
      if (key == null) {
        return;
      }
      Integer before =
          value == null
              ? sizes.remove(Bytes.wrap(key))
              : sizes.put(Bytes.wrap(key), key.length + value.length);
      bytes += (value == null ? 0 : key.length + value.length) - (before == null ? 0 : before);
    }

    long bytes() {
      return bytes;
    }

    int keys() {
      return sizes.size();
    }
  }

  /**
   * A {@link Live} per topic over every committed record of {@code topics} (read_committed, from
   * the start). One per topic: the stores of a task key their records alike (a shard's record and
   * its outbox entry have the same key), so a tombstone of one must not drop the other.
   */
  static Map<String, Live> liveBytes(String bootstrap, List<String> topics) {
    Map<String, Object> p = new HashMap<>();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20);
    Map<String, Live> live = new TreeMap<>();
    topics.forEach(t -> live.put(t, new Live()));
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (String topic : topics) {
        for (PartitionInfo i : c.partitionsFor(topic, Duration.ofSeconds(30))) {
          parts.add(new TopicPartition(topic, i.partition()));
        }
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("reading " + topics + " took over 5 minutes");
        }
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          live.get(r.topic()).add(r.key(), r.value());
        }
      }
    }
    return live;
  }

  /**
   * The changelogs of application {@code app} once compacted: their live keys and bytes, in all and
   * by store ("shard-records: 10,000 keys, 1,234,567 B, ...").
   *
   * @param names every changelog topic, {@code <app>-<store>-changelog}
   */
  record Changelogs(List<String> names, long liveBytes, int liveKeys, String byStore) {}

  /** The live bytes of every changelog of {@code app} ({@link #liveBytes}). */
  static Changelogs changelogs(String bootstrap, String app) throws Exception {
    List<String> names;
    try (org.apache.kafka.clients.admin.Admin admin =
        org.apache.kafka.clients.admin.Admin.create(
            Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      names =
          admin.listTopics().names().get(30, java.util.concurrent.TimeUnit.SECONDS).stream()
              .filter(n -> n.startsWith(app + "-") && n.endsWith("-changelog"))
              .sorted()
              .toList();
    }
    Map<String, Live> live = liveBytes(bootstrap, names);
    long bytes = 0;
    int keys = 0;
    StringBuilder byStore = new StringBuilder();
    for (Map.Entry<String, Live> e : live.entrySet()) {
      bytes += e.getValue().bytes();
      keys += e.getValue().keys();
      String store =
          e.getKey().substring(app.length() + 1, e.getKey().length() - "-changelog".length());
      byStore.append(
          String.format(
              java.util.Locale.ROOT,
              "%s%s: %,d keys, %,d B",
              byStore.length() == 0 ? "" : ", ",
              store,
              e.getValue().keys(),
              e.getValue().bytes()));
    }
    return new Changelogs(names, bytes, keys, byStore.toString());
  }

  /** Bytes of every regular file under {@code dir}; 0 when it does not exist. */
  static long directoryBytes(Path dir) {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (var walk = Files.walk(dir)) {
      return walk.filter(Files::isRegularFile)
          .mapToLong(
              f -> {
                try {
                  return Files.size(f);
                } catch (IOException e) {
                  return 0; // a file RocksDB removed meanwhile
                }
              })
          .sum();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot walk " + dir, e);
    }
  }
}
