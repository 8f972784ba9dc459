package io.demandfold.it;

import io.demandfold.core.Keys;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Utils;

/**
 * The fence that proves "nothing more came" without a sleep, for a topic the etcd source fills: one
 * marker record per partition, put into etcd after everything the test wrote, then awaited on every
 * partition. The source delivers in etcd's revision order (a snapshot before its watch) and a
 * partition keeps the order of its sends, so once every partition holds its marker, whatever the
 * source was going to deliver before the markers (a second snapshot, a repeated event) is in the
 * topic, before them.
 *
 * <pre>{@code
 * List<Fence.Marker> markers = Fence.markers("fence", partitions);
 * // put each marker's record into etcd, after the test's own writes
 * List<ConsumerRecord<byte[], byte[]>> all = Fence.await(services, topic, markers);
 * }</pre>
 */
final class Fence {
  private Fence() {}

  /**
   * A marker: a shard of its own target, whose key Kafka's partitioner puts on {@code partition}.
   */
  record Marker(String target, String shard, int partition) {
    String key() {
      return Keys.shardKey(target, shard);
    }
  }

  /** One marker per partition, each the only shard of its target {@code base-N}. */
  static List<Marker> markers(String base, int partitions) {
    Marker[] out = new Marker[partitions];
    int found = 0;
    for (int i = 0; found < partitions; i++) {
      String target = base + "-" + i;
      int p = partition(Keys.shardKey(target, "m"), partitions);
      if (out[p] == null) {
        out[p] = new Marker(target, "m", p);
        found++;
      }
    }
    return List.of(out);
  }

  /** The partition of a keyed record under Kafka's default partitioner (murmur2 of the key). */
  static int partition(String key, int partitions) {
    return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
  }

  /**
   * Waits until {@code topic} holds every marker, each on its partition, and returns every record
   * read then.
   */
  static List<ConsumerRecord<byte[], byte[]>> await(
      Services services, String topic, List<Marker> markers) throws InterruptedException {
    return Harness.await(
            "the fence's markers on every partition of " + topic,
            () -> new Read(services.readAll(topic), markers),
            r -> r.missing().isEmpty(),
            Harness.PATIENCE)
        .records();
  }

  /** The records of a topic, and the markers not among them yet (as key@partition). */
  private record Read(List<ConsumerRecord<byte[], byte[]>> records, List<Marker> markers) {
    Set<String> missing() {
      Set<String> missing = new TreeSet<>();
      markers.forEach(m -> missing.add(m.key() + "@" + m.partition()));
      for (ConsumerRecord<byte[], byte[]> r : records) {
        missing.remove(new String(r.key(), StandardCharsets.UTF_8) + "@" + r.partition());
      }
      return missing;
    }

    @Override
    public String toString() {
      return records.size() + " records, markers missing: " + new ArrayList<>(missing());
    }
  }
}
