package io.demandfold.view;

import static io.demandfold.core.Events.executor;
import static io.demandfold.core.Events.writer;
import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.DemandClasses;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;
import io.demandfold.core.Urgency;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.core.codec.TableJson;
import io.demandfold.mirror.EtcdLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The view's state without etcd: events applied once and in order, refusals, resyncs. */
class ViewStateTest {
  private static final EtcdLayout LAYOUT = new EtcdLayout("/df");
  private static final long NOW = 1_764_400_000_000L;

  private final ViewState state = state(Set.of());

  private static ViewState state(Set<String> held) {
    return new ViewState(new ViewRecords(LAYOUT, held), held, DemandClasses.defaults(), () -> NOW);
  }

  /** A table record of {@code shards} shards, each {@code pending} generations behind. */
  static byte[] table(int shards, long pending) {
    List<ShardRecord> records = new ArrayList<>();
    for (int i = 0; i < shards; i++) {
      records.add(
          writer("s" + i, pending, 1, NOW - 1000).toBuilder()
              .sealedBytesThrough(1000 * pending)
              .sealedTime(1, NOW - 1000)
              .build());
    }
    return TableJson.encode(TableRecord.of(records), 1 << 20);
  }

  private static ViewEvent put(String target, byte[] value, long rev) {
    return new ViewEvent(LAYOUT.tableKey(Keys.hex(target)), value, rev);
  }

  private static ViewEvent delete(String target, long rev) {
    return new ViewEvent(LAYOUT.tableKey(Keys.hex(target)), null, rev);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void shouldApplyEveryRevisionOnceAndInOrder() {
    state.replace(10, List.of(put("orders", table(2, 3), 7)));
    assertThat(state.table("orders").pendingGenerations()).isEqualTo(6);

    List<TableChange> first =
        state.apply(List.of(put("orders", table(2, 5), 11), put("logs", table(1, 300), 12)));
    assertThat(first).extracting(TableChange::target).containsExactly("orders", "logs");
    assertThat(first.get(0).old().pendingGenerations()).isEqualTo(6);
    assertThat(first.get(0).current().pendingGenerations()).isEqualTo(10);
    assertThat(first.get(0).current().urgency()).isEqualTo(Urgency.DUE);
    assertThat(first.get(1).old()).isNull();
    assertThat(first.get(1).current().urgency()).isEqualTo(Urgency.CRITICAL);
    assertThat(state.revision()).isEqualTo(12);

    // a restarted watch delivers 11 and 12 again, then 13: only 13 is new
    List<TableChange> again =
        state.apply(
            List.of(
                put("orders", table(2, 5), 11),
                put("logs", table(1, 300), 12),
                delete("orders", 13)));
    assertThat(again).hasSize(1);
    assertThat(again.get(0).deleted()).isTrue();
    assertThat(again.get(0).revision()).isEqualTo(13);
    assertThat(state.tables()).containsOnlyKeys("logs");
    assertThat(state.applied()).isEqualTo(13);
  }

  /**
   * The keys of one etcd transaction share a revision: every event of it is applied, in a response
   * of its own or after events of earlier revisions, and a response that repeats revisions already
   * applied (a watch restarted over them) is still skipped.
   */
  @Test
  void shouldApplyEveryEventOfARevisionNotOnlyTheFirst() {
    state.replace(10, List.of(put("a", table(1, 1), 3), put("b", table(1, 1), 4)));

    // three puts in one transaction
    List<TableChange> txn =
        state.apply(
            List.of(
                put("a", table(1, 2), 11), put("b", table(1, 2), 11), put("c", table(1, 2), 11)));
    assertThat(txn).extracting(TableChange::target).containsExactly("a", "b", "c");
    assertThat(txn).allSatisfy(c -> assertThat(c.revision()).isEqualTo(11));
    assertThat(state.applied()).isEqualTo(11);

    // a range delete of two keys, after a put of an earlier revision in the same response
    List<TableChange> del =
        state.apply(List.of(put("d", table(1, 5), 12), delete("a", 13), delete("b", 13)));
    assertThat(del).extracting(TableChange::target).containsExactly("d", "a", "b");
    assertThat(del.get(1).deleted()).isTrue();
    assertThat(del.get(2).deleted()).isTrue();

    // a transaction mixing puts and deletes
    List<TableChange> mixed =
        state.apply(List.of(put("a", table(1, 7), 14), delete("c", 14), put("e", table(1, 7), 14)));
    assertThat(mixed).extracting(TableChange::target).containsExactly("a", "c", "e");
    assertThat(state.tables()).containsOnlyKeys("a", "d", "e");
    assertThat(state.revision()).isEqualTo(14);

    // a response repeating revisions already applied, whole or in part: nothing applied twice
    assertThat(state.apply(List.of(delete("c", 14), put("e", table(1, 7), 14)))).isEmpty();
    assertThat(state.apply(List.of(put("b", table(1, 9), 11), delete("d", 15))))
        .extracting(TableChange::target)
        .containsExactly("d");
    assertThat(state.tables()).containsOnlyKeys("a", "e");
  }

  @Test
  void shouldRefuseANewerSchemaAndUnreadableRecordsWithoutReadingThemAsZero() {
    state.replace(5, List.of(put("orders", table(1, 4), 3)));
    List<TableChange> changes =
        state.apply(
            List.of(
                put("orders", utf8("{\"v\":999,\"shards\":{}}"), 6),
                put("logs", utf8("{not json"), 7),
                new ViewEvent(LAYOUT.tableRecordsPrefix() + "XYZ", utf8("{}"), 8)));
    assertThat(changes).hasSize(2);
    assertThat(changes.get(0).current()).isNull();
    assertThat(changes.get(0).deleted()).isFalse();
    assertThat(changes.get(0).refused()).contains("unknown schema version 999");
    assertThat(changes.get(0).old().pendingGenerations()).isEqualTo(4);
    assertThat(state.tables()).isEmpty();
    assertThat(state.refused())
        .containsOnlyKeys(
            LAYOUT.tableKey(Keys.hex("orders")),
            LAYOUT.tableKey(Keys.hex("logs")),
            LAYOUT.tableRecordsPrefix() + "XYZ");
    assertThat(state.refused().get(LAYOUT.tableKey(Keys.hex("logs"))))
        .startsWith("unreadable table record: malformed JSON");
    assertThat(state.refusedCount(true)).isEqualTo(1);
    assertThat(state.refusedCount(false)).isEqualTo(2);

    // readable again: no longer refused
    state.apply(List.of(put("orders", table(1, 2), 9)));
    assertThat(state.table("orders").pendingGenerations()).isEqualTo(2);
    assertThat(state.refused()).doesNotContainKey(LAYOUT.tableKey(Keys.hex("orders")));
  }

  @Test
  void shouldTellOnAResyncEveryTargetThatDiffersAndNoOther() {
    byte[] same = table(1, 1);
    state.replace(
        10,
        List.of(put("kept", same, 3), put("changed", table(1, 1), 4), put("gone", table(1, 1), 5)));
    List<TableChange> changes =
        state.replace(
            20,
            List.of(
                put("kept", same, 3),
                put("changed", table(1, 9), 15),
                put("new", table(1, 2), 16),
                put("bad", utf8("{\"v\":2}"), 17)));
    assertThat(changes)
        .extracting(TableChange::target)
        .containsExactly("bad", "changed", "gone", "new");
    assertThat(changes).allSatisfy(c -> assertThat(c.revision()).isEqualTo(20));
    assertThat(changes.get(0).refused()).contains("unknown schema version 2");
    assertThat(changes.get(1).current().pendingGenerations()).isEqualTo(9);
    assertThat(changes.get(2).deleted()).isTrue();
    assertThat(changes.get(3).old()).isNull();
    assertThat(state.revision()).isEqualTo(20);
    assertThat(state.applied()).isEqualTo(20);
  }

  @Test
  void shouldHoldTheShardRecordsOfHeldTargetsOnly() {
    ViewState s = state(Set.of("orders"));
    ShardRecord a = writer("a", 4, 1, NOW);
    ShardRecord b = executor("b", 3, 3, 1, NOW);
    s.replace(
        10,
        List.of(
            new ViewEvent(
                LAYOUT.shardKey(Keys.shardKey("orders", "b")), JsonCodec.encodeRecord(b), 8),
            new ViewEvent(
                LAYOUT.shardKey(Keys.shardKey("logs", "x")), JsonCodec.encodeRecord(a), 9)));
    s.apply(
        List.of(
            new ViewEvent(
                LAYOUT.shardKey(Keys.shardKey("orders", "a")), JsonCodec.encodeRecord(a), 11),
            new ViewEvent(
                LAYOUT.shardKey(Keys.shardKey("orders", "c")),
                utf8("{\"v\":7,\"shard\":\"c\"}"),
                12)));
    List<ShardDemand> shards = s.shards("orders");
    assertThat(shards).extracting(ShardDemand::shard).containsExactly("a", "b", "c");
    assertThat(shards.get(0).view().pendingGenerations()).isEqualTo(4);
    assertThat(shards.get(1).view().pendingGenerations()).isZero();
    assertThat(shards.get(2).record()).isNull();
    assertThat(shards.get(2).refused()).contains("unknown schema version 7");
    assertThat(s.refused()).containsOnlyKeys(LAYOUT.shardKey(Keys.shardKey("orders", "c")));
    assertThat(s.shards("logs")).isNull();
  }
}
