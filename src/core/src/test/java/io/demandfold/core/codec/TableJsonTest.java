package io.demandfold.core.codec;

import static io.demandfold.core.Events.executor;
import static io.demandfold.core.Events.fold;
import static io.demandfold.core.Events.writer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.demandfold.core.Bound;
import io.demandfold.core.DerivedTable;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableProgress;
import io.demandfold.core.TableRecord;
import io.demandfold.core.TableShard;
import io.demandfold.core.TableView;
import io.demandfold.core.UnknownVersionException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class TableJsonTest {
  private static final ShardRecord A = fold(writer("a", 1, 1, 1000), writer("a", 2, 1, 2000));
  private static final ShardRecord B = fold(executor("b", 9, 4, 2, 50), writer("b", 10, 3, 60));

  @Test
  void shouldWriteTheReferenceShapeWithTheDerivedView() {
    String json = utf8(TableJson.encode(TableRecord.of(List.of(B, A)), 1 << 20));
    assertThat(json)
        .isEqualTo(
            "{\"v\":1,\"shards\":{"
                + "\"a\":{\"sealed\":{\"epoch\":1,\"value\":2},\"merged\":null,\"sealed_bytes\":0,"
                + "\"sealed_times\":{\"1\":1000},\"kept\":{\"count\":2,\"lowest\":1}},"
                + "\"b\":{\"sealed\":{\"epoch\":3,\"value\":10},\"merged\":{\"epoch\":2,\"value\":4},"
                + "\"sealed_bytes\":0,\"sealed_times\":{\"10\":60},"
                + "\"kept\":{\"count\":1,\"lowest\":10}}},"
                + "\"observed_revision\":0,\"updated_ms\":0,\"pending_generations\":8,"
                + "\"pending_bytes\":0,\"oldest_pending_ms\":60,\"oldest_pending_exact_ms\":1000}");
  }

  @Test
  void shouldRoundTripAndJoinWithoutLoweringAnything() {
    TableRecord r = TableRecord.of(List.of(A, B));
    byte[] bytes = TableJson.encode(r, 1 << 20);
    TableRecord back = TableJson.decode(bytes);
    assertThat(back).isEqualTo(r);
    assertThat(back.join(r)).isSameAs(back);

    TableRecord older = TableRecord.of(List.of(fold(writer("a", 1, 1, 1000))));
    assertThat(back.join(older)).isSameAs(back);
    TableRecord joined = older.join(back);
    assertThat(joined).isEqualTo(r);
  }

  @Test
  void shouldGoCompactOverTheLimitKeepingTheViewOfTheFullRecord() {
    TableRecord r = TableRecord.of(List.of(A, B));
    byte[] full = TableJson.encode(r, 1 << 20);
    byte[] compact = TableJson.encode(r, full.length - 1);
    String c = utf8(compact);
    assertThat(c).doesNotContain("sealed_times").doesNotContain("kept");
    assertThat(c).endsWith(",\"compact\":true}");
    assertThat(c).contains("\"oldest_pending_exact_ms\":1000");
    assertThat(TableJson.isDerivedOnly(compact)).isFalse();
    TableRecord fromCompact = TableJson.decode(compact);
    assertThat(fromCompact.join(r).shards().get("a").oldestMs()).isEqualTo(1000);
    assertThat(fromCompact.join(r)).isEqualTo(r);
  }

  @Test
  void shouldWriteTheDerivedFieldsAloneWhenEvenCompactDoesNotFit() {
    TableRecord r = TableRecord.of(List.of(A, B));
    byte[] derived = TableJson.encode(r, 50);
    assertThat(utf8(derived))
        .isEqualTo(
            "{\"v\":1,\"shards\":{},\"observed_revision\":0,\"updated_ms\":0,"
                + "\"pending_generations\":8,\"pending_bytes\":0,\"oldest_pending_ms\":60,"
                + "\"oldest_pending_exact_ms\":1000,\"shard_count\":2,"
                // shards, merged (count, values, epochs), sealed (values, epochs), bytes, kept
                // (counts, lowests), with an oldest time, minus their times and generations
                + "\"progress\":[2,1,4,2,12,4,0,3,11,2,-1060,-11],\"derived_only\":true}");
    assertThat(TableJson.isDerivedOnly(derived)).isTrue();
    assertThat(TableJson.isDerivedOnly(TableJson.encode(r, 1 << 20))).isFalse();
    // it reads as a record of no shards, so our next full record joins over it whole
    assertThat(TableJson.decode(derived).shards()).isEmpty();
    assertThat(TableJson.decode(derived).join(r)).isEqualTo(r);
  }

  @Test
  void shouldGiveUpAFormAsSoonAsItOutgrowsTheLimit() {
    // 200,000 shards: the full form is ~30 MB; trying it against 64 KiB must stop early
    List<ShardRecord> many = new java.util.ArrayList<>();
    for (int i = 0; i < 200_000; i++) {
      many.add(fold(writer("s" + i, 1, 1, 1000 + i)));
    }
    TableRecord r = TableRecord.of(many);
    byte[] derived = TableJson.encode(r, 64 << 10);
    assertThat(TableJson.isDerivedOnly(derived)).isTrue();
    assertThat(utf8(derived)).contains("\"shard_count\":200000", "\"oldest_pending_ms\":1000,");
    assertThat(TableJson.entriesThatMayFit(64 << 10)).isLessThan(200_000);
  }

  @Test
  void shouldNeverWriteACompactEntryShorterThanTheBoundUsedToSkipBuildingIt() {
    // the smallest entry: a one-character shard name, every number 0
    ShardRecord tiny = fold(writer("a", 0, 0, 0));
    TableRecord one = TableRecord.of(List.of(tiny));
    TableRecord two = TableRecord.of(List.of(tiny, fold(writer("b", 0, 0, 0))));
    int oneEntry = compactLength(two) - compactLength(one);
    assertThat(oneEntry).isGreaterThanOrEqualTo(TableJson.MIN_COMPACT_ENTRY_BYTES);
    int n = 1_000;
    List<ShardRecord> many = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      many.add(fold(writer(Integer.toString(i, 36), 0, 0, 0)));
    }
    assertThat(compactLength(TableRecord.of(many)))
        .isGreaterThanOrEqualTo(n * TableJson.MIN_COMPACT_ENTRY_BYTES);
  }

  private static int compactLength(TableRecord r) {
    int full = TableJson.encode(r, 1 << 24).length;
    byte[] compact = TableJson.encode(r, full - 1);
    assertThat(utf8(compact)).endsWith(",\"compact\":true}");
    return compact.length;
  }

  @Test
  void shouldReadAShardOfTheReferenceShapeAsTheEntryOfItsFlushTimes() {
    // another writer's entry: every flush time, no "kept"
    String reference =
        "{\"v\":1,\"shards\":{\"a\":{\"sealed\":{\"epoch\":1,\"value\":3},"
            + "\"merged\":{\"epoch\":1,\"value\":1},\"sealed_bytes\":30,"
            + "\"sealed_times\":{\"1\":1000,\"2\":2000,\"3\":3000}}}}";
    TableShard a = TableJson.decode(reference.getBytes(StandardCharsets.UTF_8)).shards().get("a");
    assertThat(a.oldestGeneration()).isEqualTo(2);
    assertThat(a.oldestMs()).isEqualTo(2000);
    // of its flush times, those the cut of docs/model.md section 5 keeps: above merged 1
    assertThat(a.kept()).isEqualTo(new TableShard.Kept(2, 2));
    assertThat(a.view().oldestPendingBound()).isEqualTo(Bound.EXACT);
    assertThat(a.view().pendingGenerations()).isEqualTo(2);
  }

  @Test
  void shouldRefuseUnknownVersionsAndExplainBadShapes() {
    assertThatThrownBy(() -> TableJson.decode("{\"v\":7,\"shards\":{}}".getBytes()))
        .isInstanceOf(UnknownVersionException.class);
    assertThatThrownBy(() -> TableJson.decode("{\"v\":1}".getBytes()))
        .hasMessage("field 'shards' must be an object");
    assertThatThrownBy(
            () ->
                TableJson.decode(
                    "{\"shards\":{\"a\":{\"sealed\":{\"epoch\":-1,\"value\":1}}}}".getBytes()))
        .hasMessageContaining("field 'epoch' is -1");
    assertThatThrownBy(() -> TableJson.decode("not json".getBytes()))
        .hasMessageStartingWith("malformed JSON");
  }

  private static final String SEALED = "\"sealed\":{\"epoch\":1,\"value\":5},\"merged\":null,";

  @Test
  void shouldReadVersionsAndGenerationsAsStrictlyAsTheShardRecordCodec() {
    // "v":null and a key "+5" or "05" are refused by JsonCodec; a table record is read alike
    assertThatThrownBy(() -> TableJson.decode("{\"v\":null,\"shards\":{}}".getBytes()))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage("field 'v' is not an integer");
    for (String key : new String[] {"+5", "05", "-1", " 5", "99999999999999999999"}) {
      String json = "{\"shards\":{\"a\":{" + SEALED + "\"sealed_times\":{\"" + key + "\":1}}}}";
      assertThatThrownBy(() -> TableJson.decode(json.getBytes()))
          .as(key)
          .isInstanceOf(InvalidEventException.class)
          .hasMessageContaining("shard 'a': sealed_times key");
    }
    assertThat(
            TableJson.decode(
                    ("{\"shards\":{\"a\":{" + SEALED + "\"sealed_times\":{\"5\":1}}}}").getBytes())
                .shards())
        .containsOnlyKeys("a");
  }

  @Test
  void shouldBoundTheNestingOfHostileJson() {
    String deep = "[".repeat(100) + "]".repeat(100); // past the bound of 64, within Jackson's 1000
    assertThatThrownBy(() -> TableJson.decode(deep.getBytes()))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageStartingWith("malformed JSON");
  }

  private static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void shouldReadTheViewOfEveryFormFromItsEntriesOrItsDerivedFields() {
    TableRecord r = TableRecord.of(List.of(A, B));
    TableView expected = r.view();
    byte[] full = TableJson.encode(r, 1 << 20);
    byte[] compact = TableJson.encode(r, full.length - 1);
    byte[] derived = TableJson.derivedOnly(DerivedTable.of(r));
    assertThat(TableJson.decodeView(full)).isEqualTo(expected);
    // compact entries carry no flush times: the ages come from the derived fields
    assertThat(TableJson.decodeView(compact)).isEqualTo(expected);
    assertThat(TableJson.decode(compact).view().oldestPendingMs()).isEmpty();
    // derived-only: no entries at all, never a table without demand
    assertThat(TableJson.decodeView(derived)).isEqualTo(expected);
    assertThat(TableJson.decode(derived).view().pendingGenerations()).isZero();
    assertThat(expected.oldestPendingBound()).isEqualTo(Bound.UPPER);
  }

  @Test
  void shouldRefuseAViewOfANewerSchemaOrOfADerivedOnlyRecordWithoutItsFields() {
    assertThatThrownBy(() -> TableJson.decodeView(bytes("{\"v\":999,\"shards\":{}}")))
        .isInstanceOf(UnknownVersionException.class)
        .hasMessage("unknown schema version 999");
    assertThatThrownBy(
            () ->
                TableJson.decodeView(
                    bytes("{\"v\":1,\"shards\":{},\"shard_count\":3,\"derived_only\":true}")))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage("missing field 'pending_generations'");
    assertThatThrownBy(() -> TableJson.decodeView(bytes("not json")))
        .isInstanceOf(InvalidEventException.class);
  }

  @Test
  void shouldReadTheProgressOfADerivedOnlyRecordAndAcceptOneWithout() {
    TableRecord r = TableRecord.of(List.of(A, B));
    byte[] derived = TableJson.encode(r, 50);
    String old =
        "{\"v\":1,\"shards\":{},\"observed_revision\":0,\"updated_ms\":0,"
            + "\"pending_generations\":8,\"pending_bytes\":0,\"oldest_pending_ms\":60,"
            + "\"oldest_pending_exact_ms\":1000,\"shard_count\":2,\"derived_only\":true}";

    assertThat(TableJson.progress(derived)).isEqualTo(TableProgress.of(r.shards().values()));
    assertThat(TableJson.progress(TableJson.encode(r, 1 << 20))).isNull();
    // written before the field: read as it was, with no progress
    assertThat(TableJson.progress(bytes(old))).isNull();
    assertThat(TableJson.isDerivedOnly(bytes(old))).isTrue();
    assertThat(TableJson.decodeView(bytes(old))).isEqualTo(TableJson.decodeView(derived));
    assertThat(TableJson.decodeView(derived)).isEqualTo(r.view());
  }

  @Test
  void shouldRefuseAProgressThatIsNotItsIntegers() {
    String head = "{\"v\":1,\"shards\":{},\"shard_count\":2,\"progress\":";
    String tail = ",\"derived_only\":true}";
    for (String bad : new String[] {"[1,2,3]", "\"x\"", "[1,2,3,4,5,6,7,8,9,10,11,1.5]"}) {
      assertThatThrownBy(() -> TableJson.progress(bytes(head + bad + tail)))
          .as(bad)
          .isInstanceOf(InvalidEventException.class)
          .hasMessageContaining("field 'progress'");
    }
    String big = "[1,0,0,0,0,0,99999999999999999999999,0,0,0,-5,1]";
    assertThat(TableJson.progress(bytes(head + big + tail)).sums().get(6))
        .isEqualTo(new java.math.BigInteger("99999999999999999999999"));
    assertThatThrownBy(() -> TableJson.progress(bytes("{\"v\":9,\"shards\":{}}")))
        .isInstanceOf(UnknownVersionException.class);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
