package io.demandfold.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.DerivedTable;
import io.demandfold.core.Events;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableProgress;
import io.demandfold.core.TableRecord;
import io.demandfold.core.TableView;
import io.demandfold.core.codec.TableJson;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the mirror decides to write to a table key, from the stored bytes alone: no etcd. */
class TableJoinerTest {
  private static final String KEY = "/df/demand/6f72";
  private static final String THEIRS =
      "{\"v\":1,\"shards\":{\"theirs\":{\"sealed\":{\"epoch\":1,\"value\":9},"
          + "\"merged\":null,\"sealed_bytes\":1}}}";

  private final TableJoiner joiner =
      new TableJoiner(new RequestBudget(1_572_864), new MirrorWarnings());
  private final TableRecord ours =
      TableRecord.of(List.of(Events.fold(Events.writer("a", 5, 1, 5000))));

  private static KnownValues.Value stored(String json) {
    return KnownValues.Value.read(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void shouldWriteOursIntoAnAbsentKey() {
    Decision<TableRecord> d = joiner.decide(KEY, null, ours);

    assertThat(d.result()).isEqualTo(MirrorResult.WRITTEN);
    assertThat(TableJson.decode(d.value())).isEqualTo(ours);
  }

  @Test
  void shouldKeepTheShardsOfOtherWritersInTheJoin() {
    Decision<TableRecord> d = joiner.decide(KEY, stored(THEIRS), ours);

    assertThat(d.result()).isEqualTo(MirrorResult.WRITTEN);
    TableRecord written = TableJson.decode(d.value());
    assertThat(written.shards()).containsOnlyKeys("a", "theirs");
    assertThat(written.shards().get("a")).isEqualTo(ours.shards().get("a"));
    assertThat(d.record()).isEqualTo(written);
  }

  @Test
  void shouldWriteNothingWhenItsOwnRecordIsStoredAlready() {
    byte[] bytes = joiner.value(KEY, ours);
    KnownValues.Value ownWrite = new KnownValues.Value(7, bytes, ours, true);

    Decision<TableRecord> remembered = joiner.decide(KEY, ownWrite, ours);
    Decision<TableRecord> read = joiner.decide(KEY, KnownValues.Value.read(bytes), ours);

    assertThat(remembered.result()).isEqualTo(MirrorResult.UNCHANGED);
    assertThat(remembered.writes()).isFalse();
    assertThat(read.result()).as("the same bytes, read back").isEqualTo(MirrorResult.UNCHANGED);
    assertThat(read.writes()).isFalse();
  }

  @Test
  void shouldWriteTheDerivedFieldsAloneWhenEvenCompactIsTooLarge() {
    TableJoiner small = new TableJoiner(new RequestBudget(8192), new MirrorWarnings());
    List<ShardRecord> many = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      many.add(Events.fold(Events.writer("s" + i, 2, 1, 1000 + i)));
    }
    assertThat(many.size()).isGreaterThan(small.entriesThatMayFit());

    Decision<TableRecord> d = small.decide(KEY, stored(THEIRS), TableRecord.of(many));

    assertThat(d.result()).isEqualTo(MirrorResult.TOO_LARGE);
    assertThat(d.writes()).isTrue();
    assertThat(TableJson.isDerivedOnly(d.value())).isTrue();
    assertThat(d.value().length).isLessThanOrEqualTo(new RequestBudget(8192).valueBytes(KEY));
    assertThat(d.record()).as("nothing to remember of a derived-only record").isNull();
  }

  @Test
  void shouldWriteCompactWhatFitsOnlyCompact() {
    List<ShardRecord> some = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      some.add(Events.fold(Events.writer("s" + i, 2, 1, 1000 + i)));
    }
    TableRecord r = TableRecord.of(some);
    int full = TableJson.encode(r, Integer.MAX_VALUE).length;
    // one byte short of the full form, once the key's three copies and the framing are counted
    RequestBudget budget =
        new RequestBudget(
            full
                - 1
                + RequestBudget.KEY_COPIES * KEY.length()
                + RequestBudget.REQUEST_FRAMING_BYTES);
    assertThat(budget.valueBytes(KEY)).isEqualTo(full - 1);

    Decision<TableRecord> d = new TableJoiner(budget, new MirrorWarnings()).decide(KEY, null, r);

    assertThat(d.result()).isEqualTo(MirrorResult.WRITTEN);
    assertThat(new String(d.value(), StandardCharsets.UTF_8)).endsWith(",\"compact\":true}");
    assertThat(d.value().length).isLessThan(full);
    assertThat(TableJson.decode(d.value()).shards()).hasSize(100);
  }

  @Test
  void shouldRefuseARecordOfAnUnknownVersionOrJsonItCannotRead() {
    String newer = "{\"v\":100000000000000000000,\"shards\":{}}";
    String missingField =
        "{\"v\":1,\"shards\":{\"theirs\":{\"sealed\":{\"epoch\":1,\"value\":9},\"merged\":null,"
            + "\"sealed_bytes\":1},\"broken\":{\"merged\":null}}}";

    Decision<TableRecord> n = joiner.decide(KEY, stored(newer), ours);
    Decision<TableRecord> m = joiner.decide(KEY, stored(missingField), ours);
    Decision<TableRecord> derivedOverNewer =
        joiner.decideDerivedOnly(
            KEY,
            stored(newer),
            DerivedTable.of(ours),
            TableJson.derivedOnly(DerivedTable.of(ours)));

    assertThat(n.result()).isEqualTo(MirrorResult.REFUSED_NEWER_SCHEMA);
    assertThat(n.writes()).isFalse();
    assertThat(m.result()).isEqualTo(MirrorResult.REFUSED_UNREADABLE);
    assertThat(m.writes()).isFalse();
    assertThat(derivedOverNewer.result()).isEqualTo(MirrorResult.REFUSED_NEWER_SCHEMA);
    assertThat(derivedOverNewer.writes()).isFalse();
  }

  @Test
  void shouldReplaceAValueThatIsNotJsonByOurs() {
    Decision<TableRecord> d = joiner.decide(KEY, stored("{\"v\":1,\"shards\":{"), ours);

    assertThat(d.result()).isEqualTo(MirrorResult.WRITTEN);
    assertThat(d.replacedInvalid()).isTrue();
    assertThat(TableJson.decode(d.value())).isEqualTo(ours);
  }

  /** 300 shards flushed through generation 2, and shard s0 also through {@code s0}. */
  private static TableRecord wide(long s0) {
    List<ShardRecord> many = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      ShardRecord r = Events.fold(Events.writer("s" + i, 2, 1, 1000 + i));
      many.add(i == 0 ? Events.fold(r, Events.writer("s0", s0, 1, 5000)) : r);
    }
    return TableRecord.of(many);
  }

  private final TableJoiner small = new TableJoiner(new RequestBudget(8192), new MirrorWarnings());

  private static byte[] derivedOnly(TableRecord r) {
    return TableJson.derivedOnly(DerivedTable.of(r));
  }

  @Test
  void shouldNotPutBackAStaleDerivedOnlyRecordOverANewerOne() {
    TableRecord older = wide(2);
    TableRecord newer = wide(3);
    assertThat(older.shards()).hasSizeGreaterThan(small.entriesThatMayFit());
    byte[] stored = small.value(KEY, newer);
    assertThat(TableJson.isDerivedOnly(stored)).isTrue();

    // the path that builds the entries, and the table stage's path that does not
    Decision<TableRecord> built = small.decide(KEY, KnownValues.Value.read(stored), older);
    Decision<TableRecord> view =
        small.decideDerivedOnly(
            KEY, KnownValues.Value.read(stored), DerivedTable.of(older), derivedOnly(older));

    assertThat(built.result()).isEqualTo(MirrorResult.UNCHANGED);
    assertThat(built.writes()).isFalse();
    assertThat(view.result()).isEqualTo(MirrorResult.UNCHANGED);
    assertThat(view.writes()).isFalse();
  }

  @Test
  void shouldWriteANewerDerivedOnlyRecordOverAnOlderOne() {
    TableRecord older = wide(2);
    TableRecord newer = wide(3);
    KnownValues.Value stored = KnownValues.Value.read(small.value(KEY, older));

    Decision<TableRecord> built = small.decide(KEY, stored, newer);
    Decision<TableRecord> view =
        small.decideDerivedOnly(KEY, stored, DerivedTable.of(newer), derivedOnly(newer));

    assertThat(built.result()).isEqualTo(MirrorResult.TOO_LARGE);
    assertThat(built.value()).isEqualTo(derivedOnly(newer));
    assertThat(view.result()).isEqualTo(MirrorResult.TOO_LARGE);
    assertThat(view.value()).isEqualTo(derivedOnly(newer));
  }

  @Test
  void shouldOverwriteADerivedOnlyRecordWrittenWithoutProgress() {
    // as written before records carried their progress: the newer view, nothing to order it by
    String withProgress = new String(derivedOnly(wide(3)), StandardCharsets.UTF_8);
    String old = withProgress.replaceAll(",\"progress\":\\[[-0-9,]*\\]", "");
    assertThat(old)
        .doesNotContain("progress")
        .endsWith(",\"shard_count\":300,\"derived_only\":true}");
    TableRecord older = wide(2);

    Decision<TableRecord> built = small.decide(KEY, stored(old), older);
    Decision<TableRecord> view =
        small.decideDerivedOnly(KEY, stored(old), DerivedTable.of(older), derivedOnly(older));

    assertThat(built.result()).isEqualTo(MirrorResult.TOO_LARGE);
    assertThat(built.value()).isEqualTo(derivedOnly(older));
    assertThat(view.result()).isEqualTo(MirrorResult.TOO_LARGE);
    assertThat(view.value()).isEqualTo(derivedOnly(older));
  }

  @Test
  void shouldSettleEqualProgressTheSameWayWhicheverIsStored() {
    TableView v = wide(2).view();
    TableProgress p = DerivedTable.of(wide(2)).progress();
    // two folds of equal progress that neither saw all of the other's events: other views
    DerivedTable one = new DerivedTable(v, p);
    DerivedTable two =
        new DerivedTable(
            new TableView(
                v.pendingGenerations() + 1,
                v.pendingBytes(),
                v.oldestPendingMs(),
                v.oldestPendingExactMs(),
                v.shards()),
            p);
    byte[] b1 = TableJson.derivedOnly(one);
    byte[] b2 = TableJson.derivedOnly(two);

    Decision<TableRecord> twoOverOne =
        small.decideDerivedOnly(KEY, KnownValues.Value.read(b1), two, b2);
    Decision<TableRecord> oneOverTwo =
        small.decideDerivedOnly(KEY, KnownValues.Value.read(b2), one, b1);

    assertThat(twoOverOne.writes()).isNotEqualTo(oneOverTwo.writes());
    byte[] kept = twoOverOne.writes() ? b2 : b1;
    assertThat(oneOverTwo.writes() ? b1 : b2).isEqualTo(kept);
  }

  @Test
  void shouldNotLowerADerivedOnlyRecordByARecordWithFewerEntries() {
    byte[] stored = small.value(KEY, wide(3));
    TableRecord few = TableRecord.of(List.of(Events.fold(Events.writer("a", 9, 1, 500))));

    Decision<TableRecord> stale = joiner.decide(KEY, KnownValues.Value.read(stored), few);
    // the same fold once a request holds its entries: they replace its derived fields
    Decision<TableRecord> whole = joiner.decide(KEY, KnownValues.Value.read(stored), wide(3));

    assertThat(stale.result()).isEqualTo(MirrorResult.UNCHANGED);
    assertThat(stale.writes()).isFalse();
    assertThat(whole.result()).isEqualTo(MirrorResult.WRITTEN);
    assertThat(TableJson.decode(whole.value())).isEqualTo(wide(3));
  }

  @Test
  void shouldNotReplaceAStoredRecordOfHigherProgressByDerivedFields() {
    TableRecord newer = wide(3);
    byte[] full = joiner.value(KEY, newer);
    assertThat(TableJson.isDerivedOnly(full)).isFalse();

    Decision<TableRecord> stale =
        small.decideDerivedOnly(
            KEY, KnownValues.Value.read(full), DerivedTable.of(wide(2)), derivedOnly(wide(2)));
    Decision<TableRecord> same =
        small.decideDerivedOnly(
            KEY, KnownValues.Value.read(full), DerivedTable.of(newer), derivedOnly(newer));
    Decision<TableRecord> more =
        small.decideDerivedOnly(
            KEY, KnownValues.Value.read(full), DerivedTable.of(wide(4)), derivedOnly(wide(4)));

    assertThat(stale.writes()).isFalse();
    assertThat(same.writes()).as("the same fold: its entries stay").isFalse();
    assertThat(more.result()).isEqualTo(MirrorResult.TOO_LARGE);
  }
}
