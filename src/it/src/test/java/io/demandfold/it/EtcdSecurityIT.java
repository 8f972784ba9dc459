package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.demandfold.app.DemandfoldService;
import io.demandfold.connect.EtcdConnectorConfig;
import io.demandfold.connect.EtcdSinkConfig;
import io.demandfold.local.EtcdServer;
import io.demandfold.mirror.EtcdSettings;
import io.demandfold.ops.Audit;
import io.etcd.jetcd.Auth;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.auth.Permission;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * etcd with authentication and over TLS: a user whose role grants only the prefix works, and every
 * misconfiguration (wrong password, a prefix outside the role, a read-only role, no user, an
 * untrusted certificate, no client certificate) stops {@code demandfold run} at once with one line
 * naming the setting, never a stack trace; no password is ever logged. An {@code https://} endpoint
 * is always TLS, checked against the JVM's default trust store when no CA is given.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class EtcdSecurityIT {
  private static final String PASSWORD = "dfPw-7Qx!w3";
  private static final String READER_PASSWORD = "rdPw-9Lm!k2";
  private static final String ROOT_PASSWORD = "rootPw-4Zt!v8";
  private static final Duration PATIENCE = Duration.ofSeconds(90);

  @Test
  void shouldMirrorAsAUserWhoseRoleGrantsReadWriteOnThePrefixOnly(Services services)
      throws Exception {
    try (EtcdServer etcd = EtcdServer.builder().build().start();
        LogCapture logs = new LogCapture()) {
      try (Harness h = new Harness(services, "etcd-auth");
          Client root = enableAuth(etcd, h.prefix)) {
        long revision = revision(root);
        DemandfoldService s =
            h.start(
                Map.of(
                    "etcd.endpoints",
                    etcd.endpoint(),
                    "etcd.user",
                    "demandfold",
                    "etcd.password",
                    PASSWORD));
        assertThat(revision(root)).as("the start-up probe writes nothing").isEqualTo(revision);
        Random rnd = new Random(41);
        FleetStream stream = FleetStream.of(rnd, 3_000, 4, 4, 300);
        stream.produceAsync(h, rnd, 20_000).get(2, TimeUnit.MINUTES);
        Audit.Report report =
            Faults.awaitIdentical(root.getKVClient(), h.layout(), stream.fold(), PATIENCE);
        assertThat(report.divergences()).isEmpty();
        assertThat(s.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);
        assertThat(s.config().toString()).doesNotContain(PASSWORD);
        assertThat(s.config().etcd().toString()).doesNotContain(PASSWORD);
        System.out.printf(
            "EtcdSecurityIT figures: etcd auth, user with readwrite on %s/ only: %d keys identical%n",
            h.prefix, report.compared());
      }
      assertThat(logs.size()).isGreaterThan(0);
      assertThat(logs.text()).contains("StreamsConfig values").doesNotContain(PASSWORD);
    }
  }

  @Test
  void shouldStopTheStartWithOneLineNamingTheAuthSettingsWhenEtcdRefusesTheUser(
      Services services, @TempDir Path dir) throws Exception {
    try (EtcdServer etcd = EtcdServer.builder().build().start();
        LogCapture logs = new LogCapture()) {
      String prefix = "/" + services.uniqueName("auth-fail");
      Set<Thread> before = Thread.getAllStackTraces().keySet();
      try (Client root = enableAuth(etcd, prefix)) {
        long revision = revision(root);

        // a wrong password, given through the environment, in a child JVM as operators run it
        Map<String, String> settings = runSettings(services, etcd.endpoint(), prefix);
        settings.put("etcd.user", "demandfold");
        long t0 = System.nanoTime();
        try (ChildProcessor p =
            ChildProcessor.start(
                settings,
                Map.of("DEMANDFOLD_ETCD_PASSWORD", "not-" + PASSWORD),
                List.of(),
                dir.resolve("wrong-password.log"))) {
          assertThat(p.awaitExit(Duration.ofSeconds(60))).as(p.output()).isEqualTo(1);
          String out = p.output();
          assertThat(out)
              .contains(
                  "demandfold run: etcd at "
                      + etcd.endpoint()
                      + " refused the credentials of user 'demandfold' (etcd.user, etcd.password):"
                      + " etcdserver: authentication failed, invalid user ID or password")
              .doesNotContain("\tat ")
              .doesNotContain(PASSWORD);
          assertThat(out.lines().filter(l -> l.contains("etcd.password")).count()).isEqualTo(1);
          System.out.printf(
              "EtcdSecurityIT: wrong etcd password: exit 1 after %.1f s: %s%n",
              (System.nanoTime() - t0) / 1e9,
              out.lines().filter(l -> l.startsWith("demandfold run:")).findFirst().orElse(""));
        }

        Cli outside =
            run(services, etcd.endpoint(), "/elsewhere", "demandfold", PASSWORD, Map.of());
        assertThat(outside.exit()).isEqualTo(1);
        assertThat(outside.err())
            .contains("etcd user 'demandfold' may not read the keys under /elsewhere/")
            .contains("(etcd.prefix=/elsewhere)")
            .contains("readwrite --prefix=true /elsewhere/")
            .contains("etcdserver: permission denied");

        Cli reader = run(services, etcd.endpoint(), prefix, "reader", READER_PASSWORD, Map.of());
        assertThat(reader.exit()).isEqualTo(1);
        assertThat(reader.err())
            .contains("etcd user 'reader' may not write the keys under " + prefix + "/")
            .contains("(etcd.prefix=" + prefix + ")");

        Cli anonymous = run(services, etcd.endpoint(), prefix, null, null, Map.of());
        assertThat(anonymous.exit()).isEqualTo(1);
        assertThat(anonymous.err())
            .contains("requires authentication: set etcd.user and etcd.password");

        Cli noAuth =
            run(services, services.etcdEndpoint(), prefix, "demandfold", PASSWORD, Map.of());
        assertThat(noAuth.exit()).isEqualTo(1);
        assertThat(noAuth.err())
            .contains("has authentication disabled, but etcd.user is set to 'demandfold'");

        for (Cli c : List.of(outside, reader, anonymous, noAuth)) {
          assertThat(c.err().lines().count()).as(c.err()).isEqualTo(1);
          assertThat(c.err() + c.out()).doesNotContain(PASSWORD).doesNotContain(READER_PASSWORD);
          System.out.println("EtcdSecurityIT: after " + c.millis() + " ms: " + c.err().strip());
        }
        assertThat(revision(root)).as("refused starts write nothing").isEqualTo(revision);
      }
      int settled = logs.size();
      // nothing of a refused start is left to retry: once the root client is closed too, this JVM
      // holds no connection to this etcd, and no mirror or stream thread of a refused run lives
      Harness.await(
          "nothing left of the refused starts",
          () -> leftovers(etcd, before),
          List::isEmpty,
          PATIENCE);
      assertThat(logs.text().lines().skip(settled).filter(l -> l.contains("etcd")))
          .as("nothing retried after the refused starts")
          .isEmpty();
      assertThat(logs.text()).doesNotContain(PASSWORD).doesNotContain(READER_PASSWORD);
    }
  }

  @Test
  void shouldMirrorOverTlsWithAClientCertificate(Services services, @TempDir Path dir)
      throws Exception {
    TestCertificates certs = TestCertificates.generate(dir);
    try (EtcdServer etcd =
            EtcdServer.builder()
                .tls(certs.serverCert, certs.serverKey, certs.ca, true)
                .build()
                .start();
        Harness h = new Harness(services, "etcd-tls");
        Client client =
            new EtcdSettings(
                    List.of(URI.create(etcd.endpoint())),
                    null,
                    null,
                    certs.ca.toFile(),
                    certs.clientCert.toFile(),
                    certs.clientKey.toFile(),
                    Duration.ofSeconds(5))
                .connect()) {
      assertThat(etcd.endpoint()).startsWith("https://127.0.0.1:");
      DemandfoldService s =
          h.start(
              Map.of(
                  "etcd.endpoints", etcd.endpoint(),
                  "etcd.tls.ca", certs.ca.toString(),
                  "etcd.tls.cert", certs.clientCert.toString(),
                  "etcd.tls.key", certs.clientKey.toString()));
      Random rnd = new Random(43);
      FleetStream stream = FleetStream.of(rnd, 3_000, 4, 4, 300);
      stream.produceAsync(h, rnd, 20_000).get(2, TimeUnit.MINUTES);
      Audit.Report report =
          Faults.awaitIdentical(client.getKVClient(), h.layout(), stream.fold(), PATIENCE);
      assertThat(report.divergences()).isEmpty();
      assertThat(s.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);
      System.out.printf(
          "EtcdSecurityIT figures: etcd over TLS with a client certificate: %d keys identical%n",
          report.compared());
    }
  }

  @Test
  void shouldStopTheStartWithOneLineNamingTheTlsSettingsWhenTheHandshakeFails(
      Services services, @TempDir Path dir) throws Exception {
    TestCertificates certs = TestCertificates.generate(dir);
    try (EtcdServer etcd =
        EtcdServer.builder()
            .tls(certs.serverCert, certs.serverKey, certs.ca, true)
            .build()
            .start()) {
      String prefix = "/" + services.uniqueName("tls-fail");
      Map<String, String> wrongCa = new LinkedHashMap<>();
      wrongCa.put("etcd.tls.ca", certs.otherCa.toString());
      wrongCa.put("etcd.tls.cert", certs.clientCert.toString());
      wrongCa.put("etcd.tls.key", certs.clientKey.toString());
      Cli untrusted = run(services, etcd.endpoint(), prefix, null, null, wrongCa);
      assertThat(untrusted.exit()).isEqualTo(1);
      assertThat(untrusted.err())
          .contains("presented a TLS certificate this client does not trust")
          .contains("etcd.tls.ca=" + certs.otherCa)
          .contains("PKIX path building failed");

      Cli noClientCert =
          run(
              services,
              etcd.endpoint(),
              prefix,
              null,
              null,
              Map.of("etcd.tls.ca", certs.ca.toString()));
      assertThat(noClientCert.exit()).isEqualTo(1);
      assertThat(noClientCert.err())
          .contains("the TLS handshake with etcd at " + etcd.endpoint() + " failed")
          .contains("etcd.tls.cert, etcd.tls.key");

      for (Cli c : List.of(untrusted, noClientCert)) {
        assertThat(c.err().lines().count()).as(c.err()).isEqualTo(1);
        System.out.println("EtcdSecurityIT: after " + c.millis() + " ms: " + c.err().strip());
      }
    }
  }

  /**
   * An {@code https://} endpoint is never reached in plaintext: against the class's plaintext etcd,
   * a client of {@code https://} fails, and its write never lands, instead of talking to it in the
   * clear.
   */
  @Test
  void shouldNeverTalkPlaintextToAnHttpsEndpoint(Services services) throws Exception {
    String https = services.etcdEndpoint().replace("http://", "https://");
    assertThat(https).startsWith("https://127.0.0.1:");
    ByteSequence key = bytes("/" + services.uniqueName("plaintext") + "/k");
    try (Client c = EtcdSettings.of(https).connectFailFast()) {
      assertThatThrownBy(() -> c.getKVClient().put(key, bytes("v")).get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class);
    }
    assertThat(services.etcdClient().getKVClient().get(key).get(10, TimeUnit.SECONDS).getCount())
        .as("nothing written in plaintext")
        .isZero();
  }

  /**
   * {@code https://} without {@code etcd.tls.ca} is TLS checked against the JVM's default trust
   * store: {@code demandfold run} in a child JVM stops at start, naming etcd.tls.ca, while the
   * JDK's trust store does not hold the test CA (and a connector's client fails the same check);
   * with {@code -Djavax.net.ssl.trustStore} holding it, the same settings mirror every event.
   */
  @Test
  void shouldCheckAnHttpsEndpointAgainstTheJvmTrustStoreWhenNoCaIsGiven(
      Services services, @TempDir Path dir) throws Exception {
    TestCertificates certs = TestCertificates.generate(dir);
    try (EtcdServer etcd =
            EtcdServer.builder()
                .tls(certs.serverCert, certs.serverKey, null, false)
                .build()
                .start();
        Harness h = new Harness(services, "etcd-jvm-trust");
        Client client =
            new EtcdSettings(
                    List.of(URI.create(etcd.endpoint())),
                    null,
                    null,
                    certs.ca.toFile(),
                    null,
                    null,
                    Duration.ofSeconds(5))
                .connect()) {
      assertThat(etcd.endpoint()).startsWith("https://127.0.0.1:");
      Map<String, String> settings = h.settings(Map.of("etcd.endpoints", etcd.endpoint()));
      assertThat(settings).doesNotContainKey("etcd.tls.ca");

      try (ChildProcessor untrusted =
          ChildProcessor.start(settings, Map.of(), List.of(), dir.resolve("untrusted.log"))) {
        assertThat(untrusted.awaitExit(Duration.ofSeconds(90))).as(untrusted.output()).isEqualTo(1);
        assertThat(untrusted.output())
            .contains(
                "demandfold run: etcd at "
                    + etcd.endpoint()
                    + " presented a TLS certificate this client does not trust (etcd.tls.ca=unset:"
                    + " the JVM's default trust store;")
            .contains("PKIX path building failed")
            .doesNotContain("\tat ");
      }

      // the connectors build their client from the same settings: TLS, checked against this
      // JVM's default trust store, which does not hold the test CA
      Map<String, String> sink =
          Map.of(
              "etcd.endpoints", etcd.endpoint(),
              "key.converter", EtcdConnectorConfig.BYTE_ARRAY_CONVERTER,
              "value.converter", EtcdConnectorConfig.BYTE_ARRAY_CONVERTER);
      try (Client c = new EtcdSinkConfig(sink).etcd().connectFailFast()) {
        assertThatThrownBy(() -> c.getKVClient().get(bytes("/")).get(30, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .hasStackTraceContaining("PKIX path building failed");
      }

      Path trustStore = dir.resolve("truststore.p12");
      String storePassword = "changeit-" + services.uniqueName("p");
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      try (InputStream in = Files.newInputStream(certs.ca)) {
        ks.setCertificateEntry(
            "demandfold-test-ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
      }
      try (OutputStream out = Files.newOutputStream(trustStore)) {
        ks.store(out, storePassword.toCharArray());
      }
      List<String> jvm =
          List.of(
              "-Djavax.net.ssl.trustStore=" + trustStore,
              "-Djavax.net.ssl.trustStoreType=PKCS12",
              "-Djavax.net.ssl.trustStorePassword=" + storePassword);
      try (ChildProcessor trusted =
          ChildProcessor.start(settings, Map.of(), jvm, dir.resolve("trusted.log"))) {
        trusted.explaining(() -> h.awaitTopicCreated(h.eventsTopic, PATIENCE));
        Random rnd = new Random(47);
        FleetStream stream = FleetStream.of(rnd, 2_000, 3, 4, 500);
        stream.produceAsync(h, rnd, 20_000).get(2, TimeUnit.MINUTES);
        Audit.Report report =
            Faults.awaitIdentical(client.getKVClient(), h.layout(), stream.fold(), PATIENCE);
        assertThat(report.divergences()).as(trusted.output()).isEmpty();
        assertThat(trusted.isAlive()).isTrue();
        assertThat(trusted.stop(Duration.ofSeconds(60))).as(trusted.output()).isEqualTo(143);
        System.out.printf(
            "EtcdSecurityIT figures: https:// without etcd.tls.ca, CA in the JVM's trust store:"
                + " %d keys identical%n",
            report.compared());
      }
    }
  }

  @Test
  void shouldStartAndWaitForAnEtcdThatIsNotReachableYet(Services services) throws Exception {
    try (Harness h = new Harness(services, "etcd-away")) {
      DemandfoldService s = h.start(Map.of("etcd.endpoints", "http://127.0.0.1:1"));
      Harness.awaitEquals(
          "the streams to run without etcd",
          () -> s.streams().state(),
          KafkaStreams.State.RUNNING,
          PATIENCE);
    }
  }

  private static Map<String, String> runSettings(
      Services services, String endpoint, String prefix) {
    String name = services.uniqueName("refused");
    Map<String, String> s = new LinkedHashMap<>();
    s.put("kafka.bootstrap.servers", services.bootstrapServers());
    s.put("etcd.endpoints", endpoint);
    s.put("etcd.prefix", prefix);
    s.put("application.id", name);
    s.put("topics.events", name + ".events");
    s.put("topics.dlq", name + ".dlq");
    s.put("topics.shard.records", name + ".shard-records");
    s.put("topics.table.demand", name + ".table-demand");
    s.put("http.port", "0");
    return s;
  }

  /**
   * What could still talk to {@code etcd}: this JVM's TCP connections to it, and the threads
   * started since {@code before} of a live mirror or of a refused run's streams (named after its
   * {@code refused-} application id).
   */
  private static List<String> leftovers(EtcdServer etcd, Set<Thread> before) {
    List<String> out = new ArrayList<>();
    int port = URI.create(etcd.endpoint()).getPort();
    int connections = connectionsTo(port);
    if (connections > 0) {
      out.add(connections + " connection(s) of this JVM to 127.0.0.1:" + port);
    }
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (!before.contains(t)
          && (t.getName().startsWith("demandfold-etcd-mirror")
              || t.getName().contains("refused-"))) {
        out.add("thread " + t.getName());
      }
    }
    return out;
  }

  /**
   * This JVM's established TCP connections to {@code port}, as Linux lists them: the sockets among
   * its open files ({@code /proc/self/fd}) that {@code /proc/net/tcp} and {@code tcp6} show
   * connected to that remote port.
   */
  static int connectionsTo(int port) {
    Set<String> sockets = new HashSet<>();
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
      for (Path fd : fds) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:[")) {
            sockets.add(target.substring("socket:[".length(), target.length() - 1));
          }
        } catch (IOException closedMeanwhile) {
          // not a connection any more
        }
      }
      int n = 0;
      for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
        List<String> lines = Files.readAllLines(Path.of(table));
        for (String line : lines.subList(1, lines.size())) {
          // sl local_address rem_address st tx_queue:rx_queue tr:when retrnsmt uid timeout inode
          String[] f = line.trim().split("\\s+");
          int remotePort = Integer.parseInt(f[2].substring(f[2].indexOf(':') + 1), 16);
          boolean established = f[3].equals("01");
          if (remotePort == port && established && sockets.contains(f[9])) {
            n++;
          }
        }
      }
      return n;
    } catch (IOException e) {
      throw new UncheckedIOException("reading this JVM's sockets from /proc", e);
    }
  }

  private static Cli run(
      Services services,
      String endpoint,
      String prefix,
      String user,
      String password,
      Map<String, String> extra) {
    Map<String, String> settings = runSettings(services, endpoint, prefix);
    if (user != null) {
      settings.put("etcd.user", user);
    }
    if (password != null) {
      settings.put("etcd.password", password);
    }
    settings.putAll(extra);
    return Cli.run("run", settings);
  }

  /**
   * Turns authentication on: {@code root}; a role {@code demandfold} with readwrite on {@code
   * prefix/} and below, held by user {@code demandfold}; a role {@code reader} with read only, held
   * by user {@code reader}. Returns a client logged in as root.
   */
  private static Client enableAuth(EtcdServer etcd, String prefix) throws Exception {
    ByteSequence from = bytes(prefix + "/");
    ByteSequence to = bytes(prefix + "0");
    try (Client c = Client.builder().endpoints(etcd.endpoint()).build()) {
      Auth auth = c.getAuthClient();
      auth.roleAdd(bytes("root")).get(10, TimeUnit.SECONDS);
      auth.userAdd(bytes("root"), bytes(ROOT_PASSWORD)).get(10, TimeUnit.SECONDS);
      auth.userGrantRole(bytes("root"), bytes("root")).get(10, TimeUnit.SECONDS);
      auth.roleAdd(bytes("demandfold")).get(10, TimeUnit.SECONDS);
      auth.roleGrantPermission(bytes("demandfold"), from, to, Permission.Type.READWRITE)
          .get(10, TimeUnit.SECONDS);
      auth.userAdd(bytes("demandfold"), bytes(PASSWORD)).get(10, TimeUnit.SECONDS);
      auth.userGrantRole(bytes("demandfold"), bytes("demandfold")).get(10, TimeUnit.SECONDS);
      auth.roleAdd(bytes("reader")).get(10, TimeUnit.SECONDS);
      auth.roleGrantPermission(bytes("reader"), from, to, Permission.Type.READ)
          .get(10, TimeUnit.SECONDS);
      auth.userAdd(bytes("reader"), bytes(READER_PASSWORD)).get(10, TimeUnit.SECONDS);
      auth.userGrantRole(bytes("reader"), bytes("reader")).get(10, TimeUnit.SECONDS);
      auth.authEnable().get(10, TimeUnit.SECONDS);
    }
    return Client.builder()
        .endpoints(etcd.endpoint())
        .user(bytes("root"))
        .password(bytes(ROOT_PASSWORD))
        .build();
  }

  private static long revision(Client c) throws Exception {
    return c.getKVClient().get(bytes("/")).get(10, TimeUnit.SECONDS).getHeader().getRevision();
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
