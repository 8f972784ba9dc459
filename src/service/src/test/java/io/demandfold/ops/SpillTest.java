package io.demandfold.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Events;
import io.demandfold.core.Fold;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.mirror.EtcdLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpillTest {
  private static final EtcdLayout LAYOUT = new EtcdLayout("/df");

  /** etcd's order: the keys' UTF-8 bytes, unsigned. */
  private static final Comparator<String> ETCD_ORDER =
      (a, b) ->
          java.util.Arrays.compareUnsigned(
              a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));

  private static final List<String> TARGETS =
      List.of(
          "a",
          "ab",
          "abc",
          "b",
          "orders",
          "orders-1",
          "orders-10",
          "orders-9",
          "ordersx",
          "Z",
          "0",
          "é",
          "éa",
          "日本",
          "\uD83D\uDE00x",
          "~",
          "a/b",
          "t");

  @Test
  void shouldFoldBucketsInEtcdKeyOrderAcrossEverySplit(@TempDir Path dir) throws Exception {
    for (long splitBytes : new long[] {0, 300, 5_000, Long.MAX_VALUE}) {
      Random rnd = new Random(7);
      Fold whole = new Fold();
      List<String> seen = new ArrayList<>();
      List<String> tables = new ArrayList<>();
      try (Spill spill = new Spill(dir, splitBytes)) {
        for (int i = 0; i < 3000; i++) {
          String target = TARGETS.get(rnd.nextInt(TARGETS.size()));
          if (rnd.nextInt(4) == 0) {
            target = target + rnd.nextInt(30);
          }
          String shard = Integer.toString(rnd.nextInt(12));
          ShardRecord r = Events.writer(shard, rnd.nextInt(50), 1, 1000 + i);
          DemandEvent e = new DemandEvent(target, r);
          whole.add(e);
          byte[] value = rnd.nextBoolean() ? JsonCodec.encodeEvent(e) : AvroCodec.encodeEvent(e);
          spill.add(e.key().getBytes(StandardCharsets.UTF_8), value);
        }
        assertThat(spill.events()).isEqualTo(3000);
        spill.forEachBucket(
            b -> {
              for (var t : b.targets().entrySet()) {
                for (String shard : t.getValue().keySet()) {
                  seen.add(LAYOUT.shardKey(Keys.shardKey(t.getKey(), shard)));
                }
                tables.add(LAYOUT.tableKey(Keys.hex(t.getKey())));
              }
            });
        assertThat(spill.shards()).isEqualTo(whole.shardCount());
        assertThat(spill.targets()).isEqualTo(whole.targets().size());
      }
      TreeSet<String> sorted = new TreeSet<>(ETCD_ORDER);
      sorted.addAll(seen);
      assertThat(seen).as("split at %d bytes", splitBytes).containsExactlyElementsOf(sorted);
      TreeSet<String> sortedTables = new TreeSet<>(ETCD_ORDER);
      sortedTables.addAll(tables);
      assertThat(tables).containsExactlyElementsOf(sortedTables);
      assertThat(seen).contains(LAYOUT.shardKey(Keys.shardKey("orders-10", "10")));
      try (var left = Files.list(dir)) {
        assertThat(left).as("the spill deletes its files").isEmpty();
      }
    }
  }

  @Test
  void shouldFoldEachBucketToTheRecordsOfTheWholeFold(@TempDir Path dir) throws Exception {
    Random rnd = new Random(3);
    Fold whole = new Fold();
    TreeMap<String, ShardRecord> folded = new TreeMap<>();
    try (Spill spill = new Spill(dir, 200)) {
      for (int i = 0; i < 2000; i++) {
        String target = "t" + rnd.nextInt(40);
        ShardRecord r = Events.writer(Integer.toString(rnd.nextInt(11)), rnd.nextInt(9), 1, i);
        DemandEvent e = new DemandEvent(target, r);
        whole.add(e);
        spill.add(e.key().getBytes(StandardCharsets.UTF_8), JsonCodec.encodeEvent(e));
      }
      spill.forEachBucket(
          b ->
              b.targets()
                  .forEach(
                      (t, shards) -> shards.forEach((s, r) -> folded.put(Keys.shardKey(t, s), r))));
    }
    TreeMap<String, ShardRecord> expected = new TreeMap<>();
    whole
        .targets()
        .forEach((t, shards) -> shards.forEach((s, r) -> expected.put(Keys.shardKey(t, s), r)));
    assertThat(folded).isEqualTo(expected);
  }

  @Test
  void shouldDeleteItsFilesWhenABucketConsumerFails(@TempDir Path dir) throws Exception {
    Spill spill = new Spill(dir, 0);
    DemandEvent e = new DemandEvent("t", Events.writer("s", 1, 1, 1));
    spill.add(e.key().getBytes(StandardCharsets.UTF_8), JsonCodec.encodeEvent(e));
    assertThatThrownBy(
            () -> {
              try (spill) {
                spill.forEachBucket(
                    b -> {
                      throw new IllegalStateException("boom");
                    });
              }
            })
        .as("the consumer's failure reaches the caller")
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("boom");
    try (var left = Files.list(dir)) {
      assertThat(left).isEmpty();
    }
  }

  @Test
  void shouldBucketByTheHexCharactersAfterTheSharedOnes() {
    byte[] key = "6162/s".getBytes(StandardCharsets.UTF_8);
    assertThat(Spill.bucket(key, 0)).isEqualTo(1 + 0x61);
    assertThat(Spill.bucket(key, 2)).isEqualTo(1 + 0x62);
    assertThat(Spill.bucket(key, 4)).isZero();
  }
}
