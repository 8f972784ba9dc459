package io.demandfold.app;

import io.demandfold.config.DemandfoldConfig;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.SslAuthenticationException;

/**
 * The message of a Kafka failure at start, naming the settings to look at: the security settings
 * when the broker refused the credentials or the TLS handshake, the principal's rights when it
 * refused an operation, else {@code kafka.bootstrap.servers}. Never a secret: Kafka's messages
 * carry none.
 */
final class KafkaErrors {
  private KafkaErrors() {}

  static String describe(DemandfoldConfig config, Throwable cause) {
    String at = "Kafka at " + config.getString(DemandfoldConfig.BOOTSTRAP_SERVERS);
    String said = cause.getMessage() == null ? cause.toString() : cause.getMessage();
    if (cause instanceof SslAuthenticationException) {
      return at
          + " failed the TLS handshake (kafka.security.protocol and the kafka.ssl.* settings): "
          + said;
    }
    if (cause instanceof AuthenticationException) {
      return at
          + " refused the credentials (kafka.security.protocol, kafka.sasl.mechanism,"
          + " kafka.sasl.jaas.config): "
          + said;
    }
    if (cause instanceof AuthorizationException) {
      return at
          + " denied this principal an operation on the topics (its ACLs must allow describing"
          + " and, unless topics.create=false, creating them): "
          + said;
    }
    return "cannot reach " + at + " (kafka.bootstrap.servers): " + said;
  }
}
