package io.demandfold.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.demandfold.core.Events;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.ViewJson;
import io.demandfold.local.EtcdServer;
import io.demandfold.mirror.EtcdLayout;
import io.etcd.jetcd.Auth;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.auth.Permission;
import io.etcd.jetcd.kv.GetResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The sink task against a real etcd where some keys fail and the others do not: etcd refuses the
 * task's user the keys its role does not grant ({@code permission denied}), a per-key failure that
 * heals when the role is granted them, as a partitioned member's timeouts heal when a call reaches
 * another member. Connect redelivers the batch after each failed {@code put()}; only the keys that
 * failed are mirrored again, each shard and table record is written once, and {@code put()} returns
 * (its offsets may be committed) only once every key has settled.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class EtcdSinkTaskRetryIT {
  private static final String PREFIX = "/retry";
  private static final String ROOT_PASSWORD = "rootPw-4Zt!v8";
  private static final String PASSWORD = "sinkPw-7Qx!w3";
  private static final EtcdLayout LAYOUT = new EtcdLayout(PREFIX);
  private static final int SHARDS = 4;

  private final EtcdSinkTask task = new EtcdSinkTask();
  private final EtcdSinkTaskTest.RecordedMetrics metrics = new EtcdSinkTaskTest.RecordedMetrics();
  private EtcdServer etcd;
  private Client root;

  @AfterEach
  void stop() {
    task.stop();
    if (root != null) {
      root.close();
    }
    if (etcd != null) {
      etcd.close();
    }
  }

  @Test
  void shouldMirrorAgainOnlyTheKeysThatFailedUntilEveryKeyOfTheBatchSettled() throws Exception {
    etcd = EtcdServer.builder().build().start();
    root = enableAuth();
    // "orders" is granted whole; "users" only its first two shards, and not its table record
    for (int i = 0; i < SHARDS; i++) {
      grant(shardKey("orders", i));
    }
    grant(LAYOUT.tableKey(Keys.hex("orders")));
    grant(shardKey("users", 0));
    grant(shardKey("users", 1));
    task.initialize(new EtcdSinkTaskTest.Context(null, metrics));
    task.start(
        Map.of(
            "etcd.endpoints",
            etcd.endpoint(),
            "etcd.user",
            "sink",
            "etcd.password",
            PASSWORD,
            "etcd.prefix",
            PREFIX,
            "etcd.request.timeout.ms",
            "2000",
            "mirror.retries",
            "0",
            "key.converter",
            EtcdConnectorConfig.BYTE_ARRAY_CONVERTER,
            "value.converter",
            EtcdConnectorConfig.BYTE_ARRAY_CONVERTER));
    List<SinkRecord> batch = new ArrayList<>();
    for (String target : List.of("orders", "users")) {
      for (int i = 0; i < SHARDS; i++) {
        batch.add(line(target, i, batch.size()));
      }
    }

    // round 1: two shard keys of "users" are refused; tables wait for every shard key
    assertThatThrownBy(() -> task.put(batch)).isInstanceOf(RetriableException.class);
    assertThat(written("shard")).isEqualTo(6);
    assertThat(metrics.value("keys-retried-total")).isEqualTo(2);
    assertThat(version(shardKey("users", 2))).isZero();
    assertThat(version(shardKey("orders", 0))).isEqualTo(1);

    // round 2 on: the refused shard keys are granted, then the table record of "users"
    grant(shardKey("users", 2));
    grant(shardKey("users", 3));
    int rounds = putUntilSettled(batch, 5, LAYOUT.tableKey(Keys.hex("users")));

    for (String target : List.of("orders", "users")) {
      for (int i = 0; i < SHARDS; i++) {
        assertThat(version(shardKey(target, i))).as("%s shard %d", target, i).isEqualTo(1);
      }
      assertThat(version(LAYOUT.tableKey(Keys.hex(target)))).as("table %s", target).isEqualTo(1);
    }
    assertThat(written("shard")).isEqualTo(2L * SHARDS);
    assertThat(written("table")).isEqualTo(2);
    assertThat(metrics.value("mirror-total", "kind", "shard", "result", "unchanged"))
        .as("a settled shard key is never mirrored again")
        .isZero();
    assertThat(metrics.value("mirror-total", "kind", "table", "result", "unchanged"))
        .as("a settled table record is never mirrored again")
        .isZero();
    assertThat(metrics.value("redeliveries-total")).isEqualTo(rounds);
    System.out.printf(
        "EtcdSinkTaskRetryIT figures: %d puts until settled, %d keys retried, 10 keys written once%n",
        rounds + 1, metrics.value("keys-retried-total"));
  }

  /**
   * Delivers {@code batch} again until {@code put()} returns, as Connect does after a {@link
   * RetriableException}; grants {@code lastKey} after the first failure that no longer concerns a
   * shard key. Returns how many deliveries failed in all (the first one included).
   */
  private int putUntilSettled(List<SinkRecord> batch, int most, String lastKey) throws Exception {
    int failed = 1;
    boolean granted = false;
    while (true) {
      try {
        task.put(batch);
        return failed;
      } catch (RetriableException e) {
        failed++;
        assertThat(failed).as("deliveries failed: %s", e.getMessage()).isLessThanOrEqualTo(most);
        if (!granted && written("shard") == 2L * SHARDS) {
          assertThat(written("table")).as("the table record of orders").isEqualTo(1);
          grant(lastKey);
          granted = true;
        }
      }
    }
  }

  private long written(String kind) {
    return metrics.value("mirror-total", "kind", kind, "result", "written");
  }

  private static String shardKey(String target, int shard) {
    return LAYOUT.shardKey(Keys.shardKey(target, "s" + shard));
  }

  private static SinkRecord line(String target, int shard, long offset) {
    ShardRecord r = Events.fold(Events.writer("s" + shard, 7, 2, 7000 + shard));
    return SinkRecordDecoderTest.record(
        Keys.shardKey(target, "s" + shard).getBytes(StandardCharsets.UTF_8),
        ViewJson.shardLine(target, r).getBytes(StandardCharsets.UTF_8),
        offset);
  }

  private long version(String key) throws Exception {
    GetResponse r = root.getKVClient().get(bytes(key)).get(10, TimeUnit.SECONDS);
    List<KeyValue> kvs = r.getKvs();
    return kvs.isEmpty() ? 0 : kvs.get(0).getVersion();
  }

  private void grant(String key) throws Exception {
    root.getAuthClient()
        .roleGrantPermission(
            bytes("sink"), bytes(key), ByteSequence.EMPTY, Permission.Type.READWRITE)
        .get(10, TimeUnit.SECONDS);
  }

  /**
   * Turns authentication on with {@code root} and a user {@code sink} whose role grants nothing.
   */
  private Client enableAuth() throws Exception {
    try (Client c = Client.builder().endpoints(etcd.endpoint()).build()) {
      Auth auth = c.getAuthClient();
      auth.roleAdd(bytes("root")).get(10, TimeUnit.SECONDS);
      auth.userAdd(bytes("root"), bytes(ROOT_PASSWORD)).get(10, TimeUnit.SECONDS);
      auth.userGrantRole(bytes("root"), bytes("root")).get(10, TimeUnit.SECONDS);
      auth.roleAdd(bytes("sink")).get(10, TimeUnit.SECONDS);
      auth.userAdd(bytes("sink"), bytes(PASSWORD)).get(10, TimeUnit.SECONDS);
      auth.userGrantRole(bytes("sink"), bytes("sink")).get(10, TimeUnit.SECONDS);
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
