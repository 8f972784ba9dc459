package io.demandfold.it;

import io.demandfold.local.EtcdServer;
import io.demandfold.local.KafkaBroker;

/** A {@link KafkaBroker} and an {@link EtcdServer} as child processes on loopback. */
final class LocalBackend implements Backend {
  private final KafkaBroker broker;
  private final EtcdServer etcd;

  private LocalBackend(KafkaBroker broker, EtcdServer etcd) {
    this.broker = broker;
    this.etcd = etcd;
  }

  static LocalBackend start() {
    EtcdServer etcd = EtcdServer.builder().build();
    // A short broker session: after a kill, the restarted broker re-registers once the session
    // of its previous incarnation expired (9 s by default).
    KafkaBroker broker =
        KafkaBroker.builder()
            .serverProperty("broker.session.timeout.ms", "3000")
            .serverProperty("broker.heartbeat.interval.ms", "500")
            .build();
    try {
      etcd.start();
      broker.start();
      return new LocalBackend(broker, etcd);
    } catch (RuntimeException e) {
      new LocalBackend(broker, etcd).close();
      throw e;
    }
  }

  @Override
  public String bootstrapServers() {
    return broker.bootstrapServers();
  }

  @Override
  public String etcdEndpoint() {
    return etcd.endpoint();
  }

  @Override
  public KafkaBroker broker() {
    return broker;
  }

  @Override
  public EtcdServer etcd() {
    return etcd;
  }

  @Override
  public void close() {
    try {
      broker.close();
    } finally {
      etcd.close();
    }
  }
}
