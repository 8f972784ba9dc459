package io.demandfold.mirror;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.File;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How to reach etcd: endpoints, optional user and password, optional TLS (a CA to trust, and a
 * client certificate and key), and the per-request timeout.
 *
 * <p>{@code https://} endpoints always talk TLS and authenticate the server: against {@code caFile}
 * when given, else against the JVM's default trust store ({@code javax.net.ssl.trustStore}, or the
 * JDK's {@code cacerts}). Endpoints are all {@code http://} or all {@code https://}. A user and
 * password sent without TLS to a host that is not a loopback address are logged as a warning.
 *
 * @param endpoints {@code http://} or {@code https://} URLs, one scheme for all
 * @param user etcd user, or {@code null} without authentication
 * @param password the user's password (never logged)
 * @param caFile PEM CA certificate to trust, or {@code null}
 * @param certFile PEM client certificate, or {@code null}
 * @param keyFile PEM (PKCS#8) client key, or {@code null}
 * @param requestTimeout bound on one etcd request
 */
public record EtcdSettings(
    List<URI> endpoints,
    String user,
    String password,
    File caFile,
    File certFile,
    File keyFile,
    Duration requestTimeout) {

  /** The gRPC metadata key of etcd's {@code clientv3.WithRequireLeader}. */
  static final String REQUIRE_LEADER_HEADER = "hasleader";

  /** Largest gRPC response the client accepts. */
  static final int MAX_INBOUND_BYTES = 16 << 20;

  private static final Logger log = LoggerFactory.getLogger(EtcdSettings.class);

  /** Endpoints and users warned about already: one warning per JVM, not one per client. */
  private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

  public EtcdSettings {
    Objects.requireNonNull(endpoints, "endpoints");
    if (endpoints.isEmpty()) {
      throw new IllegalArgumentException("etcd.endpoints must name at least one URL");
    }
    String mixed = mixedSchemes(endpoints.stream().map(URI::toString).toList());
    if (mixed != null) {
      throw new IllegalArgumentException("etcd.endpoints " + mixed);
    }
    Objects.requireNonNull(requestTimeout, "requestTimeout");
  }

  /**
   * {@code null} when every endpoint has the same scheme, else what is wrong, for a message that
   * names the setting: a client talks TLS to all of its endpoints or to none.
   */
  public static String mixedSchemes(List<String> endpoints) {
    Set<String> schemes = new TreeSet<>();
    for (String e : endpoints) {
      int colon = e.trim().indexOf("://");
      schemes.add(colon < 0 ? "" : e.trim().substring(0, colon).toLowerCase(Locale.ROOT));
    }
    if (schemes.contains("http") && schemes.contains("https")) {
      return "mixes http:// and https:// URLs: one client talks TLS to all of its endpoints or"
          + " to none; use https:// for every endpoint (or http:// for every one)";
    }
    return null;
  }

  /**
   * Whether the client talks TLS: with {@code https://} endpoints, and (as jetcd does) whenever a
   * CA or client certificate is given.
   */
  public boolean tls() {
    return "https".equalsIgnoreCase(endpoints.get(0).getScheme())
        || caFile != null
        || certFile != null;
  }

  /**
   * The warning for credentials that would cross the network in the clear: a user is set, the
   * client does not talk TLS, and an endpoint is not a loopback address; else empty.
   */
  public Optional<String> plaintextCredentialsWarning() {
    if (user == null || user.isEmpty() || tls()) {
      return Optional.empty();
    }
    List<String> remote =
        endpoints.stream().filter(u -> !isLoopback(u.getHost())).map(URI::toString).toList();
    if (remote.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "etcd user '"
            + user
            + "' and its password, and every record, cross the network in the clear to "
            + String.join(",", remote)
            + " (etcd.endpoints are http://, etcd.user is set): use https:// endpoints so that"
            + " etcd is reached over TLS");
  }

  /** Logs {@link #plaintextCredentialsWarning()}, once per endpoints and user in this JVM. */
  void warnOfPlaintextCredentials() {
    plaintextCredentialsWarning()
        .ifPresent(
            w -> {
              if (WARNED.add(endpoints + " " + user)) {
                log.warn(w);
              }
            });
  }

  /** Whether {@code host} is {@code localhost} or a loopback IP literal; never asks DNS. */
  static boolean isLoopback(String host) {
    if (host == null) {
      return false;
    }
    String h =
        host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    h = h.toLowerCase(Locale.ROOT);
    if (h.equals("localhost") || h.endsWith(".localhost")) {
      return true;
    }
    if (!h.contains(":") && !h.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}")) {
      return false;
    }
    try {
      return InetAddress.getByName(h).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /** These settings with requests bounded by {@code timeout} instead. */
  public EtcdSettings withRequestTimeout(Duration timeout) {
    return new EtcdSettings(endpoints, user, password, caFile, certFile, keyFile, timeout);
  }

  /** Plain endpoints, no authentication, 5 s requests. */
  public static EtcdSettings of(String... endpoints) {
    return new EtcdSettings(
        java.util.Arrays.stream(endpoints).map(URI::create).toList(),
        null,
        null,
        null,
        null,
        null,
        Duration.ofSeconds(5));
  }

  /**
   * Opens a jetcd client. The caller closes it. A request made while etcd cannot be reached fails
   * at once ({@code waitForReady(false)}) instead of waiting inside gRPC for the connection: a
   * caller's timeout does not cancel a gRPC call, so calls that wait would pile up for as long as
   * etcd is away; the mirror retries with back-off instead.
   */
  public Client connect() {
    return builder().waitForReady(false).build();
  }

  /**
   * Opens a jetcd client whose requests fail at once, with the cause, when etcd cannot be reached
   * or the TLS handshake fails, instead of waiting for a connection until their deadline: for
   * start-up checks that must tell an unreachable etcd from a refused certificate. The caller
   * closes it.
   */
  public Client connectFailFast() {
    return builder().waitForReady(false).retryMaxAttempts(0).build();
  }

  /** The client builder behind {@link #connect()}. */
  ClientBuilder builder() {
    warnOfPlaintextCredentials();
    ClientBuilder b =
        Client.builder()
            .endpoints(endpoints.toArray(URI[]::new))
            .connectTimeout(requestTimeout)
            // a response may carry table records up to etcd's request limit (1.5 MiB default)
            .maxInboundMessageSize(MAX_INBOUND_BYTES)
            .keepaliveTime(Duration.ofSeconds(30))
            .keepaliveTimeout(Duration.ofSeconds(10))
            // ping only while a call is open: etcd allows no more than two pings in two hours on
            // a connection without calls and sends an idle client that pings every 30 s away
            // (GOAWAY ENHANCE_YOUR_CALM "too_many_pings"; EtcdKeepaliveIT)
            .keepaliveWithoutCalls(false)
            // etcd's WithRequireLeader: a member cut off from its peers (no leader) refuses a call
            // at once with "etcdserver: no leader" instead of holding it to the deadline, and
            // cancels a watch when it loses its leader; the caller retries, and jetcd's
            // round-robin sends the retry to another member
            .header(REQUIRE_LEADER_HEADER, "true")
            .interceptors(List.of(new UnaryDeadline(requestTimeout)));
    if (user != null && !user.isEmpty()) {
      b.user(ByteSequence.from(user, StandardCharsets.UTF_8));
      b.password(ByteSequence.from(password == null ? "" : password, StandardCharsets.UTF_8));
    }
    if (tls()) {
      try {
        // without a CA: the JVM's default trust store (javax.net.ssl.trustStore, else cacerts)
        SslContextBuilder ssl = GrpcSslContexts.forClient();
        if (caFile != null) {
          ssl.trustManager(caFile);
        }
        if (certFile != null) {
          ssl.keyManager(certFile, keyFile);
        }
        b.sslContext(ssl.build());
      } catch (SSLException | IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "etcd TLS settings (etcd.tls.ca, etcd.tls.cert, etcd.tls.key) are unusable: "
                + e.getMessage(),
            e);
      }
    }
    return b;
  }

  @Override
  public String toString() {
    return "EtcdSettings{endpoints="
        + endpoints
        + ", user="
        + user
        + ", password="
        + (password == null ? "null" : "[hidden]")
        + ", caFile="
        + caFile
        + ", certFile="
        + certFile
        + ", keyFile="
        + keyFile
        + ", requestTimeout="
        + requestTimeout
        + "}";
  }
}
