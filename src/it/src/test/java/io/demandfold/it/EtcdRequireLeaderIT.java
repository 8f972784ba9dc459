package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.demandfold.core.Causes;
import io.demandfold.mirror.EtcdSettings;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every client the service builds ({@link EtcdSettings#connect()}: the pipeline, the sink and
 * source connectors, the CLI tools) carries etcd's {@code hasleader} requirement, against a real
 * member that has no leader: the one member left running of a three-member cluster, which is what a
 * member cut off from its peers looks like (a member started alone serves no client until it has
 * joined). The member refuses each call at once with {@code etcdserver: no leader} and ends a
 * watch, even one built without {@code withRequireLeader}; a client without the requirement gets no
 * answer at all until its deadline.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class EtcdRequireLeaderIT {
  private static final ByteSequence KEY = ByteSequence.from("/leaderless", StandardCharsets.UTF_8);
  private static final Duration REQUEST = Duration.ofSeconds(3);

  private static EtcdCluster cluster;

  @BeforeAll
  static void startThreeMembersAndKillTwo() throws Exception {
    cluster = EtcdCluster.of(3).startAll();
    cluster.kill(1);
    cluster.kill(2);
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static EtcdSettings settings() {
    return new EtcdSettings(
        List.of(URI.create(cluster.endpoint(0))), null, null, null, null, null, REQUEST);
  }

  @Test
  void shouldRefuseEveryCallOfTheServicesClientOnAMemberWithoutALeader() throws Exception {
    try (Client client = settings().connect()) {
      Throwable refused = awaitRefusal(client);
      assertThat(Causes.anyMessageContains(refused, "etcdserver: no leader"))
          .as("%s", refused)
          .isTrue();
      CompletableFuture<?> put = client.getKVClient().put(KEY, KEY);
      assertThatThrownBy(() -> put.get(REQUEST.toSeconds() * 3, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasMessageContaining("etcdserver: no leader");
    }
  }

  @Test
  void shouldLeaveACallWithoutTheRequirementUnansweredUntilItsDeadline() throws Exception {
    try (Client plain = Client.builder().endpoints(cluster.endpoint(0)).build()) {
      CompletableFuture<?> get = plain.getKVClient().get(KEY);
      assertThatThrownBy(() -> get.get(REQUEST.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(TimeoutException.class);
      get.cancel(true);
    }
  }

  @Test
  void shouldEndAWatchOfTheServicesClientOnAMemberWithoutALeader() throws Exception {
    try (Client client = settings().connect()) {
      awaitRefusal(client);
      CompletableFuture<Throwable> error = new CompletableFuture<>();
      Watch.Listener listener =
          Watch.listener(r -> error.complete(null), error::complete, () -> error.complete(null));
      try (Watch.Watcher w =
          client.getWatchClient().watch(KEY, WatchOption.builder().build(), listener)) {
        Throwable t = error.get(30, TimeUnit.SECONDS);
        assertThat(t).isNotNull();
        assertThat(Causes.anyMessageContains(t, "no leader")).as("%s", t).isTrue();
      }
    }
  }

  /** The first "no leader" refusal of a get (the member notices after its election timeout). */
  private static Throwable awaitRefusal(Client client) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        client.getKVClient().get(KEY).get(REQUEST.toSeconds() * 3, TimeUnit.SECONDS);
        throw new AssertionError("a member without a leader answered a linearizable get");
      } catch (ExecutionException e) {
        if (Causes.anyMessageContains(e, "no leader") || System.nanoTime() - deadline > 0) {
          return e;
        }
      }
      Thread.sleep(200);
    }
  }
}
