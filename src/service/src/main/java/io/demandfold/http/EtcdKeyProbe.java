package io.demandfold.http;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.options.GetOption;
import java.util.concurrent.TimeUnit;

/**
 * {@code /readyz}'s etcd request: one linearizable, count-only get of one key (the prefix key
 * itself, which need not exist). A linearizable read goes through the leader's read index, so it
 * fails when the member's cluster has no quorum; its cost does not grow with the keys under the
 * prefix, as a count over the prefix did.
 */
public final class EtcdKeyProbe implements EtcdProbe {
  private final KV kv;
  private final ByteSequence key;
  private final long timeoutMs;

  /**
   * @param key the key read, e.g. {@code "/demandfold/"}
   * @param timeoutMs how long the read may take before the probe fails
   */
  public EtcdKeyProbe(KV kv, ByteSequence key, long timeoutMs) {
    if (timeoutMs <= 0) {
      throw new IllegalArgumentException("timeoutMs must be positive: " + timeoutMs);
    }
    this.kv = kv;
    this.key = key;
    this.timeoutMs = timeoutMs;
  }

  @Override
  public void check() throws Exception {
    kv.get(key, GetOption.builder().withCountOnly(true).withLimit(1).build())
        .get(timeoutMs, TimeUnit.MILLISECONDS);
  }
}
