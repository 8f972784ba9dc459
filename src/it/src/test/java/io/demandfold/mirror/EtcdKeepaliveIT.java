package io.demandfold.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.local.EtcdServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Why etcd answered the client's keepalive pings with {@code GOAWAY ENHANCE_YOUR_CALM
 * "too_many_pings"}, and that the service's client no longer provokes it, against a real etcd.
 *
 * <p>etcd's gRPC server (grpc-go) enforces a keepalive policy: while a call is open, a client may
 * ping at most every {@code --grpc-keepalive-min-time} (5 s); and since etcd does not permit pings
 * without streams ({@code PermitWithoutStream=false}), a connection with no open call may see at
 * most two pings within two hours (grpc-go's {@code defaultPingTimeout}). The third such strike
 * closes the connection with that GOAWAY. jetcd's client pings every {@code keepaliveTime} (30 s)
 * and, by default, also without calls ({@code keepaliveWithoutCalls=true}): a client idle for about
 * two minutes (four pings) was sent away, and gRPC logged the GOAWAY as a warning. The service's
 * client now pings only while a call is open.
 *
 * <p>Both clients here ping every 10 s (gRPC's shortest keepalive time) instead of 30 s, so the
 * strikes come three times sooner; the policy is the same.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class EtcdKeepaliveIT {
  private static final Duration PING = Duration.ofSeconds(10);
  private static final Duration PATIENCE = Duration.ofMinutes(3);
  private static final ByteSequence KEY = ByteSequence.from("/keepalive", StandardCharsets.UTF_8);

  /** gRPC's Netty transport, which logs a GOAWAY it receives (a strong reference: JUL is weak). */
  private static final Logger GRPC = Logger.getLogger("io.grpc.netty");

  private static final List<String> goaways = new CopyOnWriteArrayList<>();
  private static final Handler CAPTURE =
      new Handler() {
        @Override
        public void publish(LogRecord r) {
          String text = r.getMessage();
          if (r.getParameters() != null) {
            text = java.text.MessageFormat.format(text, r.getParameters());
          }
          if (text != null && text.contains("GOAWAY")) {
            goaways.add(text);
          }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  private static EtcdServer etcd;

  @BeforeAll
  static void start() {
    GRPC.addHandler(CAPTURE);
    etcd = EtcdServer.builder().build().start();
  }

  @AfterAll
  static void stop() {
    GRPC.removeHandler(CAPTURE);
    if (etcd != null) {
      etcd.close();
    }
  }

  @Test
  void shouldBeSentAwayWhenPingingWithoutCallsButNotWithTheServiceSettings() throws Exception {
    EtcdSettings settings = EtcdSettings.of(etcd.endpoint());

    // before: jetcd's default, pings also without calls
    goaways.clear();
    long t0 = System.nanoTime();
    try (Client pinging =
        settings.builder().keepaliveTime(PING).keepaliveWithoutCalls(true).build()) {
      put(pinging);
      long deadline = t0 + PATIENCE.toNanos();
      while (goaways.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(500);
      }
    }
    Duration idleUntilSentAway = Duration.ofNanos(System.nanoTime() - t0);
    assertThat(goaways)
        .as("an idle client that pings without calls is sent away")
        .singleElement()
        .asString()
        .contains("ENHANCE_YOUR_CALM")
        .contains("too_many_pings");
    System.out.printf(
        "EtcdKeepaliveIT: pinging without calls every %d s, sent away after %d s idle%n",
        PING.toSeconds(), idleUntilSentAway.toSeconds());

    // after: the service's settings, idle for longer than that
    goaways.clear();
    try (Client service = settings.builder().keepaliveTime(PING).build()) {
      put(service);
      Thread.sleep(idleUntilSentAway.plus(PING.multipliedBy(2)).toMillis());
      assertThat(goaways).as("the service's client, idle as long").isEmpty();
      assertThat(
              service
                  .getKVClient()
                  .get(KEY)
                  .get(10, TimeUnit.SECONDS)
                  .getKvs()
                  .get(0)
                  .getValue()
                  .toString(StandardCharsets.UTF_8))
          .isEqualTo("v");
    }
    assertThat(goaways).isEmpty();
  }

  private static void put(Client client) throws Exception {
    client
        .getKVClient()
        .put(KEY, ByteSequence.from("v", StandardCharsets.UTF_8))
        .get(10, TimeUnit.SECONDS);
  }
}
