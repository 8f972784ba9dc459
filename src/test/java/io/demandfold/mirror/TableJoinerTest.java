package io.demandfold.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.Events;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;
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
        joiner.decideDerivedOnly(KEY, stored(newer), TableJson.derivedOnly(ours.view()), 1);

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
}
