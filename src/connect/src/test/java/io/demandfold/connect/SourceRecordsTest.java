package io.demandfold.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.connect.SourceOffset.Phase;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Events;
import io.demandfold.core.InvalidEventException.Reason;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.EventDecoder;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.mirror.EtcdLayout;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

class SourceRecordsTest {
  private static final EtcdLayout LAYOUT = new EtcdLayout("/df");
  private static final ShardRecord STORED =
      Events.fold(Events.writer("s-1", 9, 2, 9000), Events.executor("s-1", 9, 4, 1, 9100));

  private static byte[] key(String suffix) {
    return (LAYOUT.shardRecordsPrefix() + suffix).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void shouldTurnAStoredRecordIntoTheEventOfItsTargetDecodedFromTheKey() {
    SourceRecords json = new SourceRecords(LAYOUT, "events", false, new TaskMetrics(null));
    String suffix = Keys.shardKey("orders/eu", "s-1");
    DemandEvent e = json.event(key(suffix), JsonCodec.encodeRecord(STORED), 17);
    assertThat(e).isEqualTo(new DemandEvent("orders/eu", STORED));

    SourceRecord r = json.record(e, 17, Phase.WATCH, SourceOffset.watch(17, "ab"));
    assertThat(r.topic()).isEqualTo("events");
    assertThat(r.kafkaPartition()).isNull();
    assertThat(r.keySchema()).isEqualTo(Schema.BYTES_SCHEMA);
    assertThat(new String((byte[]) r.key(), StandardCharsets.UTF_8)).isEqualTo(suffix);
    assertThat((byte[]) r.value()).isEqualTo(JsonCodec.encodeEvent(e));
    assertThat(r.sourcePartition()).isEqualTo(Map.of("etcd.prefix", "/df"));
    assertThat(r.sourceOffset())
        .isEqualTo(Map.of("phase", "watch", "revision", 17L, "cluster_id", "ab"));
    assertThat(r.headers().lastWithName("demandfold.etcd.revision").value()).isEqualTo(17L);
    assertThat(r.headers().lastWithName("demandfold.etcd.phase").value()).isEqualTo("watch");

    SourceRecords avro = new SourceRecords(LAYOUT, "events", true, new TaskMetrics(null));
    byte[] value =
        (byte[]) avro.record(e, 17, Phase.SNAPSHOT, SourceOffset.watch(17, null)).value();
    assertThat(AvroCodec.isSingleObject(value)).isTrue();
    assertThat(EventDecoder.decode(value)).isEqualTo(e);
  }

  @Test
  void shouldSkipAndCountWhatIsNotAValidRecord() {
    SourceRecords r = new SourceRecords(LAYOUT, "events", false, new TaskMetrics(null));
    byte[] ok = JsonCodec.encodeRecord(STORED);
    String good = Keys.shardKey("orders", "s-1");
    assertThat(r.event(key("no-slash"), ok, 1)).isNull();
    assertThat(r.event(key("ZZ/s-1"), ok, 2)).isNull();
    assertThat(r.event(key(Keys.shardKey("orders", "other")), ok, 3)).isNull();
    assertThat(r.event(key(good), "{\"v\":3}".getBytes(StandardCharsets.UTF_8), 4)).isNull();
    assertThat(r.event(key(good), "garbage".getBytes(StandardCharsets.UTF_8), 5)).isNull();
    assertThat(r.event(key(good), new byte[0], 6)).isNull();
    assertThat(r.event(new byte[] {(byte) 0xc3, 0x28}, ok, 7)).isNull();
    assertThat(r.skipped(Reason.INVALID_KEY)).isEqualTo(3);
    assertThat(r.skipped(Reason.KEY_MISMATCH)).isEqualTo(1);
    assertThat(r.skipped(Reason.UNKNOWN_VERSION)).isEqualTo(1);
    assertThat(r.skipped(Reason.UNDECODABLE)).isEqualTo(2);
    assertThat(r.event(key(good), ok, 8)).isNotNull();
  }
}
