package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.DemandEvent;
import io.demandfold.ops.Audit;
import io.etcd.jetcd.Client;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The etcd sink in a real Connect worker against a real three-member etcd cluster whose leader is
 * SIGKILLed while the sink writes: the remaining two members elect a new leader, the calls that
 * reached the dead member or the election fail and only those keys are mirrored again, and etcd
 * ends identical to the fold of every event, read from the survivors and, after it rejoined, from
 * the killed member too. And against a follower cut off from its peers while the sink's calls still
 * reach it: it refuses them for want of a leader, the sink mirrors again only those keys, and the
 * majority holds the fold during the cut, the member cut off too after the heal.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class EtcdClusterSinkIT {
  private static final Duration PATIENCE = Duration.ofMinutes(2);

  @RegisterExtension
  static final ConnectWorkerExtension connect = ConnectWorkerExtension.named("cluster-sink");

  @Test
  void shouldLoseNothingWhenTheEtcdLeaderIsKilledWhileTheSinkWrites(Services services)
      throws Exception {
    try (EtcdCluster etcd = EtcdCluster.of(3).startAll();
        Harness h = new Harness(services, "sink-leader-kill");
        Client reader = Client.builder().endpoints(etcd.endpoints().split(",")).build();
        LogCapture logs = new LogCapture()) {
      services.createTopic(h.eventsTopic, 2);
      Random rnd = new Random(53);
      List<DemandEvent> events = RandomStreams.stream(rnd, "lk", 3, 24, 3000);
      int third = events.size() / 3;
      connect.worker().create(h.name, sink(h, etcd, "1000"));
      h.produce(events.subList(0, third), rnd);
      h.flush();
      Audit.Report before =
          Faults.awaitIdentical(
              reader.getKVClient(), h.layout(), Harness.fold(events.subList(0, third)), PATIENCE);
      assertThat(before.divergences()).as("before the kill").isEmpty();

      int leader = etcd.leader(reader);
      h.produce(events.subList(third, 2 * third), rnd);
      etcd.kill(leader);
      long killed = System.nanoTime();
      h.produce(events.subList(2 * third, events.size()), rnd);
      h.flush();
      Audit.Report after =
          Faults.awaitIdentical(reader.getKVClient(), h.layout(), Harness.fold(events), PATIENCE);
      long convergedMs = (System.nanoTime() - killed) / 1_000_000;
      assertThat(after.divergences()).as("read from the two members left").isEmpty();
      assertThat(Faults.lost(reader.getKVClient(), h.layout(), events)).isZero();
      assertThat(connect.worker().state(h.name)).isEqualTo("RUNNING");
      // answers of three members in any order, an election between: etcd lost nothing
      assertThat(logs.text().lines().filter(l -> l.contains("etcd lost writes")))
          .as("losses noticed by the sink's mirror")
          .isEmpty();

      etcd.start(leader);
      try (Client rejoined = Client.builder().endpoints(etcd.endpoint(leader)).build()) {
        Audit.Report there =
            Faults.awaitIdentical(
                rejoined.getKVClient(), h.layout(), Harness.fold(events), PATIENCE);
        assertThat(there.divergences()).as("read from the member that rejoined").isEmpty();
      }
      System.out.printf(
          "EtcdClusterSinkIT figures: leader e%d SIGKILLed during %d events; etcd identical to the"
              + " fold (%d records) %d ms after the kill; %d redeliveries, %d keys retried%n",
          leader + 1,
          events.size() - third,
          after.compared(),
          convergedMs,
          taskMetric(h.name, "redeliveries-total"),
          taskMetric(h.name, "keys-retried-total"));
      connect.worker().delete(h.name);
    }
  }

  @Test
  void shouldMirrorEverythingWhileAFollowerIsCutOffFromItsPeers(Services services)
      throws Exception {
    try (EtcdCluster etcd = EtcdCluster.withPeerProxies(3).startAll();
        Harness h = new Harness(services, "sink-cut");
        Client any = Client.builder().endpoints(etcd.endpoints().split(",")).build()) {
      services.createTopic(h.eventsTopic, 2);
      Random rnd = new Random(59);
      List<DemandEvent> events = RandomStreams.stream(rnd, "cut", 3, 48, 3000);
      int third = events.size() / 3;
      connect.worker().create(h.name, sink(h, etcd, "2000"));
      h.produce(events.subList(0, third), rnd);
      h.flush();
      assertThat(
              Faults.awaitIdentical(
                      any.getKVClient(),
                      h.layout(),
                      Harness.fold(events.subList(0, third)),
                      PATIENCE)
                  .divergences())
          .as("before the cut")
          .isEmpty();

      int cut = (etcd.leader(any) + 1) % etcd.size();
      etcd.cut(cut, any);
      long start = System.nanoTime();
      try (Client majority = client(etcd, (cut + 1) % 3, (cut + 2) % 3);
          Client alone = client(etcd, cut)) {
        awaitNoLeader(alone, etcd.endpoint(cut));
        h.produce(events.subList(third, events.size()), rnd);
        h.flush();
        Audit.Report during =
            Faults.awaitIdentical(
                majority.getKVClient(), h.layout(), Harness.fold(events), PATIENCE);
        long convergedMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(during.divergences()).as("read from the majority, during the cut").isEmpty();
        assertThat(leaderSeenBy(alone, etcd.endpoint(cut))).as("still cut").isZero();
        assertThat(connect.worker().state(h.name)).isEqualTo("RUNNING");
        System.out.printf(
            "EtcdClusterSinkIT figures: follower e%d cut off from its peers; %d events sent during"
                + " the cut; etcd (the majority) identical to the fold (%d records) %d ms after"
                + " the cut; %d redeliveries, %d keys retried%n",
            cut + 1,
            events.size() - third,
            during.compared(),
            convergedMs,
            taskMetric(h.name, "redeliveries-total"),
            taskMetric(h.name, "keys-retried-total"));
        etcd.heal(cut, any);
        assertThat(
                Faults.awaitIdentical(
                        alone.getKVClient(), h.layout(), Harness.fold(events), PATIENCE)
                    .divergences())
            .as("read from the member cut off, after the heal")
            .isEmpty();
      }
      connect.worker().delete(h.name);
    }
  }

  private static Map<String, String> sink(Harness h, EtcdCluster etcd, String requestTimeoutMs)
      throws Exception {
    return ConnectWorker.shipped(
        "etcd-sink.json",
        Map.ofEntries(
            Map.entry("topics", h.eventsTopic),
            Map.entry("demandfold.input", "events"),
            Map.entry("etcd.endpoints", etcd.endpoints()),
            Map.entry("etcd.prefix", h.prefix),
            Map.entry("etcd.request.timeout.ms", requestTimeoutMs),
            Map.entry("etcd.retry.backoff.ms", "200"),
            Map.entry("etcd.retry.backoff.max.ms", "1000"),
            Map.entry("errors.deadletterqueue.topic.name", h.name + ".connect-dlq"),
            Map.entry("errors.deadletterqueue.topic.replication.factor", "1"),
            Map.entry("consumer.override.max.poll.records", "200")));
  }

  private static Client client(EtcdCluster etcd, int... members) {
    String[] endpoints = new String[members.length];
    for (int i = 0; i < members.length; i++) {
      endpoints[i] = etcd.endpoint(members[i]);
    }
    return Client.builder().endpoints(endpoints).build();
  }

  /** The leader member {@code endpoint} knows of; 0 for none. */
  private static long leaderSeenBy(Client client, String endpoint) throws Exception {
    return client
        .getMaintenanceClient()
        .statusMember(endpoint)
        .get(5, TimeUnit.SECONDS)
        .getLeader();
  }

  private static void awaitNoLeader(Client client, String endpoint) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (leaderSeenBy(client, endpoint) != 0) {
      assertThat(System.nanoTime() - deadline)
          .as("the member cut off loses its leader")
          .isNegative();
      Thread.sleep(100);
    }
  }

  /** A counter of the sink task, as the worker publishes it over JMX. */
  private static long taskMetric(String connector, String name) throws Exception {
    var server = ManagementFactory.getPlatformMBeanServer();
    for (ObjectName n : server.queryNames(new ObjectName("kafka.connect:type=plugins,*"), null)) {
      if (connector.equals(n.getKeyProperty("connector"))) {
        try {
          return ((Number) server.getAttribute(n, name)).longValue();
        } catch (javax.management.AttributeNotFoundException e) {
          // another metric of the task
        }
      }
    }
    throw new AssertionError("no plugin metric " + name + " of " + connector);
  }
}
