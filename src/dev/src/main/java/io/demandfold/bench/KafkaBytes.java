package io.demandfold.bench;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;

/**
 * The bytes a broker holds per topic (every partition's log size, from {@code describeLogDirs}), so
 * that a run can report what it appended: changelogs, repartition and output topics, offsets and
 * transaction markers included. Nothing is deleted or compacted during a bench run (the active
 * segment is never cleaned), so the growth of the logs is what was written.
 */
final class KafkaBytes {
  private KafkaBytes() {}

  /** Bytes held per topic, over every broker of the cluster. */
  static Map<String, Long> byTopic(String bootstrap) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      var brokers =
          admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).stream().map(Node::id).toList();
      Map<String, Long> out = new TreeMap<>();
      for (Map<String, LogDirDescription> dirs :
          admin.describeLogDirs(brokers).allDescriptions().get(30, TimeUnit.SECONDS).values()) {
        for (LogDirDescription d : dirs.values()) {
          for (Map.Entry<TopicPartition, ReplicaInfo> e : d.replicaInfos().entrySet()) {
            out.merge(e.getKey().topic(), e.getValue().size(), Long::sum);
          }
        }
      }
      return out;
    }
  }

  /**
   * What each topic grew by from {@code before} to {@code after}; topics that did not grow left
   * out.
   */
  static Map<String, Long> growth(Map<String, Long> before, Map<String, Long> after) {
    Map<String, Long> out = new TreeMap<>();
    after.forEach(
        (topic, size) -> {
          long grew = size - before.getOrDefault(topic, 0L);
          if (grew > 0) {
            out.put(topic, grew);
          }
        });
    return out;
  }
}
