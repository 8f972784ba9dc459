package io.demandfold.bench;

import io.demandfold.mirror.PrefixScan;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.SortedMap;

/**
 * Compares what etcd holds under a prefix with the values expected there, walking both in key
 * order: etcd a page at a time at one revision, so that a million keys are never held twice.
 */
final class EtcdCompare {
  private static final int PAGE = 2000;

  private EtcdCompare() {}

  /**
   * @param compared keys in either
   * @param differing keys missing, extra or with other bytes
   * @param firstDifference the first such key, or null
   * @param revision the revision read
   * @param shardValueBytes value bytes of the shard records read
   * @param tableValueBytes value bytes of the table records read
   */
  record Result(
      long compared,
      long differing,
      String firstDifference,
      long revision,
      long shardValueBytes,
      long tableValueBytes) {}

  /**
   * Compares etcd under {@code actualPrefix + "/"} with {@code expected}, whose keys start with
   * {@code expectedPrefix} instead (the same fold checked under another prefix).
   */
  static Result run(
      KV kv, SortedMap<String, byte[]> expected, String expectedPrefix, String actualPrefix)
      throws Exception {
    PrefixScan scan = new PrefixScan(kv, actualPrefix + "/", PAGE, Duration.ofSeconds(60));
    String shards = actualPrefix + "/demand-events/";
    String tables = actualPrefix + "/demand/";
    Iterator<Map.Entry<String, byte[]>> want = expected.entrySet().iterator();
    Map.Entry<String, byte[]> w = next(want);
    long compared = 0;
    long differing = 0;
    String first = null;
    long shardBytes = 0;
    long tableBytes = 0;
    long revision;
    PrefixScan.Page page;
    do {
      page = scan.next();
      revision = page.revision();
      for (KeyValue kv1 : page.kvs()) {
        String key = kv1.getKey().toString(StandardCharsets.UTF_8);
        byte[] value = kv1.getValue().getBytes();
        if (key.startsWith(shards)) {
          shardBytes += value.length;
        } else if (key.startsWith(tables)) {
          tableBytes += value.length;
        }
        // expected keys before this one are missing from etcd
        while (w != null && rename(w.getKey(), expectedPrefix, actualPrefix).compareTo(key) < 0) {
          compared++;
          differing++;
          first = first == null ? "missing " + w.getKey() : first;
          w = next(want);
        }
        compared++;
        if (w != null && rename(w.getKey(), expectedPrefix, actualPrefix).equals(key)) {
          if (!Arrays.equals(w.getValue(), value)) {
            differing++;
            first = first == null ? "different " + key : first;
          }
          w = next(want);
        } else {
          differing++;
          first = first == null ? "extra " + key : first;
        }
      }
    } while (!page.last());
    while (w != null) {
      compared++;
      differing++;
      first = first == null ? "missing " + w.getKey() : first;
      w = next(want);
    }
    return new Result(compared, differing, first, revision, shardBytes, tableBytes);
  }

  private static String rename(String key, String from, String to) {
    return from.equals(to) ? key : to + key.substring(from.length());
  }

  private static <T> T next(Iterator<T> it) {
    return it.hasNext() ? it.next() : null;
  }
}
