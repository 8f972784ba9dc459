package io.demandfold.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;

/**
 * {@code /healthz}: the process serves. {@code /readyz}: the streams are {@code RUNNING} and etcd
 * answered a quick request; probed at most once a second, whatever the polling rate.
 */
final class Health {
  private static final long PROBE_EVERY_MS = 1000;

  private final DemandStore store;
  private final EtcdProbe etcd;
  private long probedAtMs = Long.MIN_VALUE;
  private String etcdStatus;

  /**
   * @param etcd the probe, or {@code null} when this instance does not use etcd
   */
  Health(DemandStore store, EtcdProbe etcd) {
    this.store = store;
    this.etcd = etcd;
  }

  void healthz(Exchange ex) throws IOException {
    Replies.query(ex, java.util.Set.of());
    ObjectNode o = Replies.JSON.createObjectNode();
    o.put("status", "up");
    o.put("instance", store.self());
    Replies.json(ex, 200, o);
  }

  void readyz(Exchange ex) throws IOException {
    Replies.query(ex, java.util.Set.of());
    String streams = store.vitals().state();
    String etcdNow = etcdStatus();
    boolean ready =
        streams.equals("RUNNING") && (etcdNow.equals("reachable") || etcdNow.equals("disabled"));
    ObjectNode o = Replies.JSON.createObjectNode();
    o.put("ready", ready);
    o.put("instance", store.self());
    o.put("streams", streams);
    o.put("etcd", etcdNow);
    Replies.json(ex, ready ? 200 : 503, o);
  }

  private synchronized String etcdStatus() {
    if (etcd == null) {
      return "disabled";
    }
    long now = System.currentTimeMillis();
    if (etcdStatus == null || now - probedAtMs >= PROBE_EVERY_MS) {
      try {
        etcd.check();
        etcdStatus = "reachable";
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        etcdStatus = "unreachable: interrupted";
      } catch (Exception e) {
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        etcdStatus = "unreachable: " + cause.getClass().getSimpleName() + ": " + cause.getMessage();
      }
      probedAtMs = System.currentTimeMillis();
    }
    return etcdStatus;
  }
}
