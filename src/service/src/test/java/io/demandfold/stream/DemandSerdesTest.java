package io.demandfold.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.Events;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableShard;
import io.demandfold.core.TableView;
import io.demandfold.core.codec.AvroCodec;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The internal formats: round trips, and what older builds wrote still reads. */
class DemandSerdesTest {
  private static final ShardRecord R =
      Events.fold(Events.writer("s", 5, 1, 5000), Events.executor("s", 5, 2, 1, 9000));

  @Test
  void shouldRoundTripTableEntriesAndSummaries() {
    TableShard e = TableShard.of(R);
    assertThat(
            DemandSerdes.tableShard()
                .deserializer()
                .deserialize("t", bytes(DemandSerdes.tableShard(), e)))
        .isEqualTo(e);
    ShardSummary s = new ShardSummary("s", e);
    assertThat(
            DemandSerdes.shardSummary()
                .deserializer()
                .deserialize("t", DemandSerdes.shardSummary().serializer().serialize("t", s)))
        .isEqualTo(s);
  }

  @Test
  void shouldReadAWholeAvroShardRecordOfAnOlderBuildAsItsEntry() {
    byte[] old = AvroCodec.encodeRecord(R);
    assertThat(DemandSerdes.tableShard().deserializer().deserialize("t", old))
        .isEqualTo(TableShard.of(R));
    assertThat(DemandSerdes.shardSummary().deserializer().deserialize("t", old))
        .isEqualTo(new ShardSummary("s", TableShard.of(R)));
  }

  @Test
  void shouldKeepATableViewWhoseOldestTimeIsLongMinValue() {
    TableView v = new TableView(3, 7, OptionalLong.of(Long.MIN_VALUE), OptionalLong.empty(), 2);
    byte[] b = DemandSerdes.tableView().serializer().serialize("t", v);
    assertThat(DemandSerdes.tableView().deserializer().deserialize("t", b)).isEqualTo(v);
  }

  @Test
  void shouldReadATableViewOfTheFirstFormat() {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(37);
    b.put((byte) 1).putLong(3).putLong(7).putLong(Long.MIN_VALUE).putLong(40).putInt(2);
    assertThat(DemandSerdes.tableView().deserializer().deserialize("t", b.array()))
        .isEqualTo(new TableView(3, 7, OptionalLong.empty(), OptionalLong.of(40), 2));
  }

  private static byte[] bytes(
      org.apache.kafka.common.serialization.Serde<TableShard> s, TableShard e) {
    return s.serializer().serialize("t", e);
  }
}
