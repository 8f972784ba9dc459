package io.demandfold.it;

import io.demandfold.local.EtcdServer;
import io.demandfold.local.KafkaBroker;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A native KRaft Kafka and an etcd in containers, for machines with a Docker engine ({@code
 * -Ddemandfold.services=testcontainers}). Fault tests need the local backend.
 */
final class ContainerBackend implements Backend {
  static final String KAFKA_IMAGE = "apache/kafka:4.1.0";
  static final String ETCD_IMAGE = "quay.io/coreos/etcd:v3.5.17";
  private static final int ETCD_PORT = 2379;

  private final KafkaContainer kafka;
  private final GenericContainer<?> etcd;

  private ContainerBackend(KafkaContainer kafka, GenericContainer<?> etcd) {
    this.kafka = kafka;
    this.etcd = etcd;
  }

  static ContainerBackend start() {
    if (!DockerClientFactory.instance().isDockerAvailable()) {
      throw new IllegalStateException(
          "-D"
              + PROPERTY
              + "=testcontainers needs a reachable Docker engine and none was found"
              + " (DOCKER_HOST or /var/run/docker.sock); run without the property to use"
              + " local processes");
    }
    KafkaContainer kafka =
        new KafkaContainer(DockerImageName.parse(KAFKA_IMAGE))
            .withEnv("KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR", "1")
            .withEnv("KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR", "1")
            .withEnv("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false")
            .withEnv("KAFKA_NUM_PARTITIONS", "1");
    GenericContainer<?> etcd =
        new GenericContainer<>(DockerImageName.parse(ETCD_IMAGE))
            .withExposedPorts(ETCD_PORT)
            .withCommand(
                "/usr/local/bin/etcd",
                "--name=n1",
                "--data-dir=/etcd-data",
                "--listen-client-urls=http://0.0.0.0:2379",
                "--advertise-client-urls=http://127.0.0.1:2379",
                "--listen-peer-urls=http://0.0.0.0:2380",
                "--initial-advertise-peer-urls=http://127.0.0.1:2380",
                "--initial-cluster=n1=http://127.0.0.1:2380",
                "--initial-cluster-state=new",
                "--log-level=warn")
            .waitingFor(
                Wait.forHttp("/health")
                    .forPort(ETCD_PORT)
                    .forResponsePredicate(body -> body.contains("\"health\":\"true\"")));
    try {
      etcd.start();
      kafka.start();
      return new ContainerBackend(kafka, etcd);
    } catch (RuntimeException e) {
      kafka.stop();
      etcd.stop();
      throw e;
    }
  }

  @Override
  public String bootstrapServers() {
    return kafka.getBootstrapServers();
  }

  @Override
  public String etcdEndpoint() {
    return "http://" + etcd.getHost() + ":" + etcd.getMappedPort(ETCD_PORT);
  }

  @Override
  public KafkaBroker broker() {
    throw new IllegalStateException("no broker process with -D" + PROPERTY + "=testcontainers");
  }

  @Override
  public EtcdServer etcd() {
    throw new IllegalStateException("no etcd process with -D" + PROPERTY + "=testcontainers");
  }

  @Override
  public void close() {
    try {
      kafka.stop();
    } finally {
      etcd.stop();
    }
  }
}
