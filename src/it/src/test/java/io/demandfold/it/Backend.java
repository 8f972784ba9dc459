package io.demandfold.it;

import io.demandfold.local.EtcdServer;
import io.demandfold.local.KafkaBroker;

/** Where the broker and etcd of a test class run: local child processes or containers. */
interface Backend extends AutoCloseable {
  /**
   * The system property choosing the backend: {@code local} (default) or {@code testcontainers}.
   */
  String PROPERTY = "demandfold.services";

  String bootstrapServers();

  String etcdEndpoint();

  /** The broker process, for fault tests; only the local backend has one. */
  KafkaBroker broker();

  /** The etcd process, for fault tests; only the local backend has one. */
  EtcdServer etcd();

  @Override
  void close();

  /** Starts the backend the system property names. */
  static Backend start() {
    String mode = System.getProperty(PROPERTY, "local");
    return switch (mode) {
      case "local" -> LocalBackend.start();
      case "testcontainers" -> ContainerBackend.start();
      default ->
          throw new IllegalArgumentException(
              "-D" + PROPERTY + " must be local or testcontainers, got '" + mode + "'");
    };
  }
}
