package io.demandfold.it;

import io.demandfold.local.EtcdServer;
import io.demandfold.local.KafkaBroker;

/**
 * The services of the cluster tier: a {@link KafkaCluster} of three KRaft nodes and an {@link
 * EtcdCluster} of three members behind peer proxies, all child processes on loopback.
 */
final class ClusterBackend implements Backend {
  final KafkaCluster kafka;
  final EtcdCluster etcd;

  private ClusterBackend(KafkaCluster kafka, EtcdCluster etcd) {
    this.kafka = kafka;
    this.etcd = etcd;
  }

  static ClusterBackend start() throws Exception {
    EtcdCluster etcd = EtcdCluster.withPeerProxies(3);
    try {
      etcd.startAll();
      return new ClusterBackend(KafkaCluster.start(3), etcd);
    } catch (Exception | Error e) {
      etcd.close();
      throw e;
    }
  }

  @Override
  public String bootstrapServers() {
    return kafka.bootstrapServers();
  }

  @Override
  public String etcdEndpoint() {
    return etcd.endpoints();
  }

  /** The first node; {@link #kafka} has them all. */
  @Override
  public KafkaBroker broker() {
    return kafka.node(0);
  }

  /** There is no single etcd process: {@link #etcd} has the members. */
  @Override
  public EtcdServer etcd() {
    throw new UnsupportedOperationException("the cluster tier runs an EtcdCluster: use etcd");
  }

  @Override
  public void close() {
    try {
      kafka.close();
    } finally {
      try {
        etcd.close();
      } catch (Exception e) {
        throw new IllegalStateException("stopping the etcd cluster failed", e);
      }
    }
  }
}
