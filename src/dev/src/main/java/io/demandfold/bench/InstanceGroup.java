package io.demandfold.bench;

import io.demandfold.local.ServiceProcess;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.TopicPartition;

/** The consumer group of the instances, as the broker describes it. */
final class InstanceGroup {
  private final Admin admin;
  private final String app;
  private final String topic;
  private final int partitions;
  private final List<ServiceProcess> instances;

  InstanceGroup(
      Admin admin, String app, String topic, int partitions, List<ServiceProcess> instances) {
    this.admin = admin;
    this.app = app;
    this.topic = topic;
    this.partitions = partitions;
    this.instances = instances;
  }

  /** Events partitions by instance index, from the members' client ids. */
  Map<Integer, Set<Integer>> assignment() {
    ConsumerGroupDescription d;
    try {
      d = admin.describeConsumerGroups(List.of(app)).all().get(10, TimeUnit.SECONDS).get(app);
    } catch (Exception e) {
      return Map.of();
    }
    Map<Integer, Set<Integer>> out = new TreeMap<>();
    for (MemberDescription m : d.members()) {
      int i = instanceOf(m.clientId());
      if (i < 0) {
        continue;
      }
      Set<Integer> parts = out.computeIfAbsent(i, k -> new TreeSet<>());
      for (TopicPartition tp : m.assignment().topicPartitions()) {
        if (tp.topic().equals(topic)) {
          parts.add(tp.partition());
        }
      }
    }
    return out;
  }

  private int instanceOf(String clientId) {
    for (int i = 0; i < instances.size(); i++) {
      if (clientId.startsWith(ScaleOutRun.clientId(app, i) + "-StreamThread-")) {
        return i;
      }
    }
    return -1;
  }

  /** Every instance a member, every partition assigned once, each with as many (± 1). */
  boolean balanced(Map<Integer, Set<Integer>> owners) {
    if (owners.size() != instances.size()) {
      return false;
    }
    int total = owners.values().stream().mapToInt(Set::size).sum();
    long distinct = owners.values().stream().flatMap(Set::stream).distinct().count();
    int min = owners.values().stream().mapToInt(Set::size).min().orElse(0);
    int max = owners.values().stream().mapToInt(Set::size).max().orElse(0);
    return total == partitions && distinct == partitions && max - min <= 1;
  }

  Map<Integer, Set<Integer>> awaitBalanced(Duration patience) throws InterruptedException {
    long deadline = System.nanoTime() + patience.toNanos();
    while (true) {
      Map<Integer, Set<Integer>> owners = assignment();
      if (balanced(owners)) {
        return owners;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the instances did not share " + topic + " evenly within " + patience + ": " + owners);
      }
      ScaleOutRun.requireAlive(instances, -1);
      Thread.sleep(250);
    }
  }

  /** Whether the victim left the group and the others hold every partition. */
  boolean takenOver(int victim) {
    Map<Integer, Set<Integer>> owners = assignment();
    if (owners.containsKey(victim)) {
      return false;
    }
    return owners.values().stream().flatMap(Set::stream).distinct().count() == partitions;
  }
}
