package io.demandfold.app;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.mirror.EtcdSettings;
import io.demandfold.mirror.PrefixScan;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start-up check of etcd: can this instance read and write its prefix with the configured
 * endpoints, credentials and TLS settings? What an operator must fix stops the start with one
 * message naming the settings (never the password); an etcd that is only unreachable is waited for.
 */
final class EtcdAccess {
  private static final Logger log = LoggerFactory.getLogger(EtcdAccess.class);

  private EtcdAccess() {}

  /**
   * Probes etcd once with a client that fails at once instead of waiting for a connection: a
   * count-only read of the prefix, then a transaction that would write the mirrored keys but never
   * does (its condition never holds; etcd checks the permissions of both branches of a transaction,
   * so it needs write access and changes nothing). Wrong credentials, missing permissions and TLS
   * failures stop the start with a message naming the settings; an unreachable etcd only warns (the
   * outbox waits for it).
   */
  static void check(DemandfoldConfig config) throws InterruptedException {
    EtcdSettings settings = config.etcd();
    EtcdLayout layout = config.layout();
    long timeoutMs = config.getLong(DemandfoldConfig.ETCD_REQUEST_TIMEOUT_MS);
    boolean reading = true;
    try (Client probe = settings.connectFailFast()) {
      KV kv = probe.getKVClient();
      kv.get(
              bytes(layout.prefix() + "/"),
              GetOption.builder().isPrefix(true).withCountOnly(true).build())
          .get(timeoutMs, TimeUnit.MILLISECONDS);
      reading = false;
      List<Op> writes = new ArrayList<>();
      if (config.getBoolean(DemandfoldConfig.MIRROR_ENABLED)) {
        writes.add(
            Op.put(bytes(layout.shardRecordsPrefix()), ByteSequence.EMPTY, PutOption.DEFAULT));
      }
      if (config.getBoolean(DemandfoldConfig.MIRROR_TABLES)) {
        writes.add(
            Op.put(bytes(layout.tableRecordsPrefix()), ByteSequence.EMPTY, PutOption.DEFAULT));
      }
      ByteSequence any = bytes(layout.prefix() + "/");
      kv.txn()
          .If(new Cmp(any, Cmp.Op.LESS, CmpTarget.version(0)))
          .Then(writes.toArray(Op[]::new))
          .commit()
          .get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      String problem = describe(config, EtcdErrors.classify(cause), reading, cause);
      if (problem != null) {
        throw new IllegalStateException(problem, cause);
      }
      log.warn(
          "etcd is not reachable yet at {}: {}{}; mirroring waits for it",
          settings.endpoints(),
          EtcdErrors.describe(cause),
          hint(settings, cause));
    } catch (TimeoutException e) {
      log.warn(
          "etcd did not answer within {} ms at {}; mirroring waits for it",
          timeoutMs,
          settings.endpoints());
    }
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  /**
   * The message that stops the start, or {@code null} when waiting may help.
   *
   * @param reading whether the failed request was the read of the prefix (else the write probe)
   */
  static String describe(
      DemandfoldConfig config, EtcdErrors.Kind kind, boolean reading, Throwable cause) {
    EtcdSettings s = config.etcd();
    String at = "etcd at " + String.join(",", config.getList(DemandfoldConfig.ETCD_ENDPOINTS));
    String said = EtcdErrors.describe(cause);
    String prefix = config.layout().prefix();
    switch (kind) {
      case CREDENTIALS:
        return at
            + " refused the credentials of user '"
            + s.user()
            + "' (etcd.user, etcd.password): "
            + said;
      case AUTH_REQUIRED:
        return at
            + " requires authentication: set etcd.user and etcd.password (etcd said: "
            + said
            + ")";
      case AUTH_DISABLED:
        return at
            + " has authentication disabled, but etcd.user is set to '"
            + s.user()
            + "': unset etcd.user and etcd.password, or enable authentication in etcd (etcd"
            + " said: "
            + said
            + ")";
      case PERMISSION:
        return "etcd user '"
            + s.user()
            + "' may not "
            + (reading ? "read" : "write")
            + " the keys under "
            + prefix
            + "/ (etcd.prefix="
            + prefix
            + "): grant one of its roles readwrite on the range from '"
            + prefix
            + "/' to '"
            + prefixEnd(prefix + "/")
            + "' (etcdctl role grant-permission ROLE readwrite --prefix=true "
            + prefix
            + "/), or set etcd.prefix to a prefix it may use (etcd said: "
            + said
            + ")";
      case SERVER_CERTIFICATE:
        return at
            + " presented a TLS certificate this client does not trust (etcd.tls.ca="
            + (s.caFile() == null ? "unset: the JVM's default trust store" : s.caFile())
            + "; the certificate must be signed by that CA and name the endpoint's host): "
            + said;
      case TLS:
        return "the TLS handshake with "
            + at
            + " failed (etcd.tls.ca, etcd.tls.cert, etcd.tls.key: etcd refuses a client"
            + " certificate its trusted CA did not sign, and etcd 3.4 demands one whenever it"
            + " has a trusted CA): "
            + said;
      default:
        return null;
    }
  }

  /** A hint for an unreachable etcd whose failure looks like a TLS mismatch, else "". */
  static String hint(EtcdSettings s, Throwable cause) {
    String said = EtcdErrors.describe(cause);
    boolean https = s.endpoints().stream().anyMatch(u -> "https".equals(u.getScheme()));
    if (!https && said.contains("Network closed")) {
      return " (if etcd serves TLS, etcd.endpoints needs https:// URLs, and etcd.tls.ca unless"
          + " the JVM's default trust store holds its CA)";
    }
    if (https && said.contains("Connection reset")) {
      return " (if etcd does not serve TLS, etcd.endpoints needs http:// URLs)";
    }
    return "";
  }

  /** The end of the key range of {@code prefix}, for display. */
  private static String prefixEnd(String prefix) {
    return new String(
        PrefixScan.prefixEnd(prefix.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
  }
}
