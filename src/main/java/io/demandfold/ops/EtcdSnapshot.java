package io.demandfold.ops;

import io.demandfold.core.Causes;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Every key under a prefix at one revision, read in pages: a page the gRPC message limit refuses
 * (large table records) is read again half as large, down to one key.
 */
public final class EtcdSnapshot {
  static final int PAGE = 500;

  private final SortedMap<String, byte[]> values;
  private final long revision;

  private EtcdSnapshot(SortedMap<String, byte[]> values, long revision) {
    this.values = values;
    this.revision = revision;
  }

  /** Reads every key starting with {@code prefix}. */
  public static EtcdSnapshot read(KV kv, String prefix, long timeoutMs)
      throws InterruptedException, ExecutionException, TimeoutException {
    byte[] p = prefix.getBytes(StandardCharsets.UTF_8);
    ByteSequence end = ByteSequence.from(prefixEnd(p));
    ByteSequence from = ByteSequence.from(p);
    SortedMap<String, byte[]> out = new TreeMap<>();
    long revision = 0;
    int page = PAGE;
    while (true) {
      GetOption.Builder o = GetOption.builder().withRange(end).withLimit(page);
      if (revision > 0) {
        o.withRevision(revision);
      }
      GetResponse r;
      try {
        r = kv.get(from, o.build()).get(timeoutMs, TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        if (page > 1 && tooLarge(e)) {
          page = Math.max(1, page / 2);
          continue;
        }
        throw e;
      }
      if (revision == 0) {
        revision = r.getHeader().getRevision();
      }
      for (KeyValue x : r.getKvs()) {
        out.put(x.getKey().toString(StandardCharsets.UTF_8), x.getValue().getBytes());
      }
      if (!r.isMore() || r.getKvs().isEmpty()) {
        break;
      }
      byte[] last = r.getKvs().get(r.getKvs().size() - 1).getKey().getBytes();
      byte[] next = Arrays.copyOf(last, last.length + 1);
      from = ByteSequence.from(next);
    }
    return new EtcdSnapshot(Collections.unmodifiableSortedMap(out), revision);
  }

  private static boolean tooLarge(Throwable e) {
    return Causes.any(
        e,
        t ->
            t instanceof io.grpc.StatusRuntimeException s
                && s.getStatus().getCode() == io.grpc.Status.Code.RESOURCE_EXHAUSTED);
  }

  /** The smallest key greater than every key with this prefix. */
  static byte[] prefixEnd(byte[] prefix) {
    byte[] end = Arrays.copyOf(prefix, prefix.length);
    for (int i = end.length - 1; i >= 0; i--) {
      if (end[i] != (byte) 0xFF) {
        end[i]++;
        return Arrays.copyOf(end, i + 1);
      }
    }
    return new byte[] {0};
  }

  /** Values by full key, in key order. */
  public SortedMap<String, byte[]> values() {
    return values;
  }

  /** The etcd revision the snapshot was read at. */
  public long revision() {
    return revision;
  }
}
