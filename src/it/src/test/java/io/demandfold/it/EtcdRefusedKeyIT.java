package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.app.DemandfoldService;
import io.demandfold.config.DemandfoldConfig;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Keys;
import io.demandfold.local.EtcdServer;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.MirrorMetrics;
import io.demandfold.mirror.RecordKind;
import io.etcd.jetcd.Auth;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.auth.Permission;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * etcd refuses one key for itself (its user's role grants the prefix around that key, not the key:
 * permission denied on it alone) while the pipeline writes many others: that key backs off on its
 * own and every other key reaches etcd without the mirror pausing once; once the role grants the
 * key again, it is written too. The mirror's idle probe reads a key the role grants.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class EtcdRefusedKeyIT {
  private static final String PASSWORD = "dfPw-2Kq!r8";
  private static final String ROOT_PASSWORD = "rootPw-6Hn!t1";
  private static final String ROLE = "demandfold";
  private static final Duration PATIENCE = Duration.ofSeconds(120);

  @Test
  void shouldWriteEveryOtherKeyWithoutAPauseWhileEtcdRefusesOneAndThatOneOnceGranted(
      Services services) throws Exception {
    try (EtcdServer etcd = EtcdServer.builder().build().start();
        Harness h = new Harness(services, "refused-key");
        Client root = enableAuth(etcd, h.prefix);
        LogCapture logs = new LogCapture()) {
      DemandfoldService s =
          h.start(
              Map.of(
                  DemandfoldConfig.ETCD_ENDPOINTS,
                  etcd.endpoint(),
                  DemandfoldConfig.ETCD_USER,
                  "demandfold",
                  DemandfoldConfig.ETCD_PASSWORD,
                  PASSWORD,
                  // etcd on loopback answers long before: a pause would be the bad key's doing
                  DemandfoldConfig.ETCD_REQUEST_TIMEOUT_MS,
                  "30000"));
      Random rnd = new Random(29);
      List<DemandEvent> events = RandomStreams.stream(rnd, "rk", 6, 120, 4000);
      String badKey = h.layout().tableKey(Keys.hex("rk-table-0"));
      // the start-up check read and wrote the whole prefix; now the role leaves one key out
      Auth auth = root.getAuthClient();
      auth.roleRevokePermission(bytes(ROLE), bytes(h.prefix + "/"), bytes(h.prefix + "0"))
          .get(10, TimeUnit.SECONDS);
      grant(auth, h.prefix + "/", badKey);
      grant(auth, badKey + "\0", h.prefix + "0");

      h.produce(events, rnd);
      Map<String, String> all = Harness.expectedEtcd(Harness.fold(events), h.layout());
      Map<String, String> others = new TreeMap<>(all);
      assertThat(others.remove(badKey)).as("the refused key is one of the fold's").isNotNull();
      Harness.awaitEquals(
          "etcd but the refused key", () -> state(root, h.prefix), others, PATIENCE);

      MirrorMetrics m = s.metrics().mirror();
      long refusals = m.keyFailures(RecordKind.TABLE);
      System.out.printf(
          "EtcdRefusedKeyIT figures: %d other keys written while etcd refused %s %d time(s);"
              + " mirror pauses %d, key failures of shard keys %d%n",
          others.size(), badKey, refusals, m.pauses(), m.keyFailures(RecordKind.SHARD));
      assertThat(m.pauses())
          .as("demandfold_mirror_pauses_total: the refusals paused no key")
          .isZero();
      assertThat(refusals).as("demandfold_mirror_key_failures_total{kind=table}").isPositive();
      assertThat(m.keyFailures(RecordKind.SHARD)).as("shard keys refused").isZero();
      Harness.awaitEquals("demandfold_mirror_keys_backing_off", m::keysBackingOff, 1, PATIENCE);
      assertThat(logs.text())
          .as("a WARN naming the refused key")
          .contains(badKey)
          .contains("permission denied");

      // granted again: the key is written once its backoff ends, nothing lost meanwhile
      auth.roleRevokePermission(bytes(ROLE), bytes(h.prefix + "/"), bytes(badKey))
          .get(10, TimeUnit.SECONDS);
      auth.roleRevokePermission(bytes(ROLE), bytes(badKey + "\0"), bytes(h.prefix + "0"))
          .get(10, TimeUnit.SECONDS);
      grant(auth, h.prefix + "/", h.prefix + "0");
      Harness.awaitEquals(
          "etcd with the key granted again", () -> state(root, h.prefix), all, PATIENCE);
      Harness.awaitEquals("no key backing off", m::keysBackingOff, 0, PATIENCE);
      assertThat(m.pauses()).as("demandfold_mirror_pauses_total").isZero();
    }
  }

  @Test
  void shouldProbeEtcdUnderThePrefixItsRoleGrants(Services services) throws Exception {
    try (EtcdServer etcd = EtcdServer.builder().build().start();
        Harness h = new Harness(services, "probe-auth")) {
      enableAuth(etcd, h.prefix).close();
      DemandfoldConfig config =
          h.config(
              Map.of(
                  DemandfoldConfig.ETCD_ENDPOINTS,
                  etcd.endpoint(),
                  DemandfoldConfig.ETCD_USER,
                  "demandfold",
                  DemandfoldConfig.ETCD_PASSWORD,
                  PASSWORD));
      try (Client user = config.etcd().connect()) {
        EtcdMirror mirror = config.mirror(user.getKVClient(), MirrorMetrics.detached(), 0);
        // what an idle instance sends every 10 s to notice lost writes: refused, it noticed none
        assertThat(mirror.probe()).succeedsWithin(Duration.ofSeconds(30));
      }
    }
  }

  /** Every key under {@code prefix}, as text, read by root. */
  private static Map<String, String> state(Client root, String prefix) {
    try {
      List<KeyValue> kvs =
          root.getKVClient()
              .get(bytes(prefix + "/"), GetOption.builder().isPrefix(true).build())
              .get(10, TimeUnit.SECONDS)
              .getKvs();
      Map<String, String> out = new TreeMap<>();
      for (KeyValue kv : kvs) {
        out.put(
            kv.getKey().toString(StandardCharsets.UTF_8),
            kv.getValue().toString(StandardCharsets.UTF_8));
      }
      return out;
    } catch (Exception e) {
      System.out.println("EtcdRefusedKeyIT: reading etcd failed: " + e);
      return Map.of();
    }
  }

  private static void grant(Auth auth, String from, String to) throws Exception {
    auth.roleGrantPermission(bytes(ROLE), bytes(from), bytes(to), Permission.Type.READWRITE)
        .get(10, TimeUnit.SECONDS);
  }

  /**
   * Turns authentication on: root, and user {@code demandfold} whose role grants readwrite on the
   * prefix's range (as docs/reliability.md tells operators to); a client of root.
   */
  private static Client enableAuth(EtcdServer etcd, String prefix) throws Exception {
    try (Client c = Client.builder().endpoints(etcd.endpoint()).build()) {
      Auth auth = c.getAuthClient();
      auth.roleAdd(bytes("root")).get(10, TimeUnit.SECONDS);
      auth.userAdd(bytes("root"), bytes(ROOT_PASSWORD)).get(10, TimeUnit.SECONDS);
      auth.userGrantRole(bytes("root"), bytes("root")).get(10, TimeUnit.SECONDS);
      auth.roleAdd(bytes(ROLE)).get(10, TimeUnit.SECONDS);
      grant(auth, prefix + "/", prefix + "0");
      auth.userAdd(bytes("demandfold"), bytes(PASSWORD)).get(10, TimeUnit.SECONDS);
      auth.userGrantRole(bytes("demandfold"), bytes(ROLE)).get(10, TimeUnit.SECONDS);
      auth.authEnable().get(10, TimeUnit.SECONDS);
    }
    return Client.builder()
        .endpoints(etcd.endpoint())
        .user(bytes("root"))
        .password(bytes(ROOT_PASSWORD))
        .build();
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
