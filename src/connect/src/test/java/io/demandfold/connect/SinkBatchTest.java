package io.demandfold.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Events;
import io.demandfold.core.Fold;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SinkBatchTest {
  @Test
  void shouldFoldABatchToOneRecordPerKeyEqualToTheCoresFold() {
    Random rnd = new Random(7);
    List<DemandEvent> events = new ArrayList<>();
    for (int g = 1; g <= 60; g++) {
      String target = "t" + (g % 3);
      String shard = "s" + (g % 5);
      events.add(new DemandEvent(target, Events.writer(shard, g, 1, g * 1000L)));
      events.add(new DemandEvent(target, Events.executor(shard, g, g - 1, 1, g * 1000L + 7)));
    }
    Collections.shuffle(events, rnd);
    SinkBatch batch = new SinkBatch();
    Fold fold = new Fold();
    events.forEach(
        e -> {
          batch.add(e);
          fold.add(e);
        });
    assertThat(batch.shards()).hasSize((int) fold.shardCount()).hasSizeLessThan(events.size());
    for (var t : fold.targets().entrySet()) {
      for (ShardRecord r : t.getValue().values()) {
        assertThat(batch.shards().get(Keys.shardKey(t.getKey(), r.shard())).record()).isEqualTo(r);
      }
    }
    Map<String, TableRecord> tables = batch.tables(k -> null);
    assertThat(tables).containsOnlyKeys(Keys.hex("t0"), Keys.hex("t1"), Keys.hex("t2"));
    assertThat(tables.get(Keys.hex("t1"))).isEqualTo(TableRecord.of(fold.shards("t1").values()));
  }

  @Test
  void shouldBuildTablesFromWhatEtcdHoldsWhenGiven() {
    SinkBatch batch = new SinkBatch();
    batch.add(new DemandEvent("t", Events.executor("s", 5, 5, 1, 9000)));
    ShardRecord stored = Events.fold(Events.writer("s", 9, 1, 8000));
    TableRecord table = batch.tables(k -> stored).get(Keys.hex("t"));
    assertThat(table).isEqualTo(TableRecord.of(List.of(stored)));
    assertThat(table.shards().get("s").sealed().value()).isEqualTo(9);
  }
}
