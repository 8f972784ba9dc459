package io.demandfold.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.Events;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;
import io.demandfold.core.codec.JsonCodec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The mirror's memory of etcd values is bounded by bytes, not by keys. */
class KnownValuesTest {

  @Test
  void shouldEvictTheLeastRecentlyUsedOnceTheBytesAreSpentWhateverTheNumberOfKeys() {
    KnownValues known = new KnownValues(1 << 20);
    ShardRecord r = Events.fold(Events.writer("s", 64, 1, 64_000));
    for (int i = 0; i < 10_000; i++) {
      known.put("shard-" + i, new KnownValues.Value(i, JsonCodec.encodeRecord(r), r, true));
    }
    assertThat(known.bytes()).isLessThanOrEqualTo(1 << 20);
    assertThat(known.size()).isBetween(100, 9_999);
    assertThat(known.get("shard-9999")).isNotNull();
    assertThat(known.get("shard-0")).isNull();

    List<ShardRecord> shards = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      shards.add(Events.fold(Events.writer("s" + i, 9, 1, 9000)));
    }
    TableRecord big = TableRecord.of(shards);
    known.put("table", new KnownValues.Value(1, new byte[900_000], big, true));
    assertThat(known.bytes()).isLessThanOrEqualTo(1 << 20);
    assertThat(known.size()).as("one large table pushes out many shards").isLessThan(100);
  }

  @Test
  void shouldKeepOnlyTheDecodedRecordOfAShardKey() {
    ShardRecord r = Events.fold(Events.writer("s", 3, 1, 3000));
    KnownValues.Value read = KnownValues.Value.read(JsonCodec.encodeRecord(r));
    KnownValues.Value decoded = read.withRecord(r);
    assertThat(decoded.value()).isNull();
    assertThat(decoded.record()).isSameAs(r);
    assertThat(decoded.bytes()).isLessThan(read.bytes() + 400);
  }

  @Test
  void shouldRememberNothingWithoutCapacity() {
    KnownValues known = new KnownValues(0);
    known.put("k", KnownValues.Value.read(new byte[10]));
    assertThat(known.get("k")).isNull();
    assertThat(known.bytes()).isZero();
  }

  @Test
  void shouldForgetEveryKeyAndItsBytesOnClear() {
    KnownValues known = new KnownValues(1 << 20);
    known.put("a", new KnownValues.Value(1, new byte[100], null, true));
    known.put("b", new KnownValues.Value(2, new byte[100], null, true));
    known.clear();
    assertThat(known.get("a")).isNull();
    assertThat(known.size()).isZero();
    assertThat(known.bytes()).isZero();
    known.put("a", new KnownValues.Value(3, new byte[100], null, true));
    assertThat(known.get("a").modRevision()).isEqualTo(3);
  }
}
