package io.demandfold.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.local.EtcdServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link PrefixScan} against a real etcd, with pages so small that the rest of a range is cut again
 * and again ({@link PrefixScan#split}): every key under the prefix comes out once, in key order, as
 * it was at the revision of the first page, while keys are added and deleted behind the scan, and
 * neither the keys just outside the prefix nor those of a scan resumed after a key leak in.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class PrefixScanIT {
  private static final String PREFIX = "/scan/shards/";

  @Test
  void shouldReadEveryKeyOnceInOrderAtTheFirstPagesRevisionWhileRangesAreCut() throws Exception {
    try (EtcdServer etcd = EtcdServer.builder().build().start();
        Client client = Client.builder().endpoints(etcd.endpoint()).build()) {
      KV kv = client.getKVClient();
      Random random = new Random(20261202);
      TreeSet<String> keys = new TreeSet<>(PrefixScanIT::utf8Order);
      while (keys.size() < 3000) {
        // hex targets of varied lengths and shard ids, some with bytes above ASCII
        String target = Long.toHexString(random.nextLong() >>> random.nextInt(60));
        String shard = random.nextInt(10) == 0 ? "é" + random.nextInt(50) : "" + random.nextInt(40);
        keys.add(PREFIX + target + "/" + shard);
      }
      List<String> all = new ArrayList<>(keys);
      for (int i = 0; i < all.size(); i += 100) {
        List<Op> ops = new ArrayList<>();
        for (String k : all.subList(i, Math.min(all.size(), i + 100))) {
          ops.add(Op.put(bytes(k), bytes("v" + k), PutOption.DEFAULT));
        }
        kv.txn().Then(ops.toArray(new Op[0])).commit().get(10, TimeUnit.SECONDS);
      }
      kv.put(bytes("/scan/shards0"), bytes("just after the prefix")).get(10, TimeUnit.SECONDS);
      kv.put(bytes("/scan/shard"), bytes("just before it")).get(10, TimeUnit.SECONDS);

      PrefixScan scan = new PrefixScan(kv, PREFIX, 5, Duration.ofSeconds(10));
      List<String> seen = new ArrayList<>();
      PrefixScan.Page page = scan.next();
      long revision = page.revision();
      // behind the scan: a key added among those not read yet, and one deleted
      kv.put(bytes(PREFIX + "8/added"), bytes("x")).get(10, TimeUnit.SECONDS);
      String deleted = all.get(all.size() / 2);
      kv.delete(bytes(deleted), DeleteOption.DEFAULT).get(10, TimeUnit.SECONDS);
      int pages = 1;
      while (true) {
        for (KeyValue k : page.kvs()) {
          String key = k.getKey().toString(StandardCharsets.UTF_8);
          assertThat(k.getValue().toString(StandardCharsets.UTF_8)).isEqualTo("v" + key);
          seen.add(key);
        }
        assertThat(page.revision()).isEqualTo(revision);
        if (page.last()) {
          break;
        }
        page = scan.next();
        pages++;
      }
      assertThat(seen).containsExactlyElementsOf(all);
      assertThat(pages).isGreaterThanOrEqualTo(all.size() / 5);

      String after = all.get(1234);
      PrefixScan resumed = new PrefixScan(kv, PREFIX, 7, Duration.ofSeconds(10), revision, after);
      List<String> rest = new ArrayList<>();
      PrefixScan.Page p;
      do {
        p = resumed.next();
        p.kvs().forEach(k -> rest.add(k.getKey().toString(StandardCharsets.UTF_8)));
      } while (!p.last());
      assertThat(rest).containsExactlyElementsOf(all.subList(1235, all.size()));
    }
  }

  private static int utf8Order(String a, String b) {
    return java.util.Arrays.compareUnsigned(
        a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
