package io.demandfold.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.Events;
import io.demandfold.core.Join;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.JsonCodec;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What the mirror decides to write to a shard key, from the stored bytes alone: no etcd. */
class ShardJoinerTest {
  private static final String KEY = "/df/demand-events/6f72/s1";

  private final ShardJoiner joiner = new ShardJoiner(new MirrorWarnings());
  private final ShardRecord ours = Events.fold(Events.writer("s1", 7, 1, 7000));

  private static KnownValues.Value stored(String json) {
    return KnownValues.Value.read(json.getBytes(StandardCharsets.UTF_8));
  }

  private static KnownValues.Value stored(ShardRecord r) {
    return KnownValues.Value.read(JsonCodec.encodeRecord(r));
  }

  /** A stored record of shard {@code shard} as another writer might have put it. */
  private static String record(String shard, String extra) {
    return "{\"v\":1,\"shard\":\""
        + shard
        + "\",\"sealed_through\":3,\"flushed_at_ms\":1,\"writer_epoch\":1,\"source\":\"writer\""
        + extra
        + "}";
  }

  @Test
  void shouldWriteTheFoldedRecordIntoAnAbsentKey() {
    Decision<ShardRecord> d = joiner.decide(KEY, null, ours, null);

    assertThat(d.result()).isEqualTo(MirrorResult.WRITTEN);
    assertThat(d.writes()).isTrue();
    assertThat(d.value()).isEqualTo(JsonCodec.encodeRecord(ours));
    assertThat(d.record()).isEqualTo(ours);
    assertThat(d.replacedInvalid()).isFalse();
  }

  @Test
  void shouldWriteTheCallersJsonAsItIsWhenTheJoinIsTheFoldedRecord() {
    byte[] json = JsonCodec.encodeRecord(ours);

    assertThat(joiner.decide(KEY, null, ours, json).value()).isSameAs(json);
  }

  @Test
  void shouldWriteNothingWhenTheJoinChangesNothing() {
    Decision<ShardRecord> same = joiner.decide(KEY, stored(ours), ours, null);
    // the stored record has seen ours already, and more
    ShardRecord newer =
        Events.fold(Events.writer("s1", 7, 1, 7000), Events.writer("s1", 9, 1, 9000));
    Decision<ShardRecord> older = joiner.decide(KEY, stored(newer), ours, null);

    assertThat(same.result()).isEqualTo(MirrorResult.UNCHANGED);
    assertThat(same.writes()).isFalse();
    assertThat(same.record()).as("the stored record, decoded, to remember").isEqualTo(ours);
    assertThat(older.result()).isEqualTo(MirrorResult.UNCHANGED);
    assertThat(older.writes()).isFalse();
    assertThat(older.record()).isEqualTo(newer);
  }

  @Test
  void shouldWriteTheJoinWhenItIsNeitherTheStoredNorTheFoldedRecord() {
    ShardRecord theirs = Events.fold(Events.executor("s1", 5, 4, 1, 5000));
    ShardRecord joined = Join.join(theirs, ours);
    assertThat(joined).isNotEqualTo(ours).isNotEqualTo(theirs);

    Decision<ShardRecord> d = joiner.decide(KEY, stored(theirs), ours, null);

    assertThat(d.result()).isEqualTo(MirrorResult.WRITTEN);
    assertThat(JsonCodec.decodeRecord(d.value())).isEqualTo(joined);
    assertThat(d.record()).isEqualTo(joined);
  }

  @Test
  void shouldRefuseARecordOfAnUnknownVersion() {
    Decision<ShardRecord> d =
        joiner.decide(KEY, stored(record("s1", "").replace("\"v\":1", "\"v\":2")), ours, null);

    assertThat(d.result()).isEqualTo(MirrorResult.REFUSED_NEWER_SCHEMA);
    assertThat(d.writes()).isFalse();
  }

  @Test
  void shouldRefuseJsonItCannotJoin() {
    for (String json :
        new String[] {
          record("s1", "").replace("\"writer\"", "\"robot\""),
          record("s1", ",\"sealed_times\":{\"2\":1,\"2\":5}"),
          "[1,2,3]"
        }) {
      Decision<ShardRecord> d = joiner.decide(KEY, stored(json), ours, null);

      assertThat(d.result()).as(json).isEqualTo(MirrorResult.REFUSED_UNREADABLE);
      assertThat(d.writes()).as(json).isFalse();
    }
  }

  @Test
  void shouldRefuseAnotherShardsRecord() {
    Decision<ShardRecord> d = joiner.decide(KEY, stored(record("somebody-else", "")), ours, null);

    assertThat(d.result()).isEqualTo(MirrorResult.REFUSED_UNREADABLE);
    assertThat(d.writes()).isFalse();
  }

  @Test
  void shouldReplaceAValueThatIsNotJson() {
    Decision<ShardRecord> d = joiner.decide(KEY, stored("{\"v\":1,\"shard\":\"trunc"), ours, null);

    assertThat(d.result()).isEqualTo(MirrorResult.WRITTEN);
    assertThat(d.replacedInvalid()).isTrue();
    assertThat(d.value()).isEqualTo(JsonCodec.encodeRecord(ours));
  }
}
