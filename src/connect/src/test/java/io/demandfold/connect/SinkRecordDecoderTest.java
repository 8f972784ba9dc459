package io.demandfold.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.demandfold.connect.EtcdSinkConfig.Input;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Events;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.core.codec.ViewJson;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

class SinkRecordDecoderTest {
  private static final SinkRecordDecoder LINES = new SinkRecordDecoder(Input.SHARD_RECORDS);
  private static final SinkRecordDecoder EVENTS = new SinkRecordDecoder(Input.EVENTS);
  private static final ShardRecord STORED =
      Events.fold(Events.writer("s1", 7, 2, 7000), Events.executor("s1", 7, 5, 1, 7100));

  static SinkRecord record(Object key, Object value) {
    return record(key, value, 3);
  }

  static SinkRecord record(Object key, Object value, long offset) {
    return new SinkRecord("t", 0, Schema.BYTES_SCHEMA, key, Schema.BYTES_SCHEMA, value, offset);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void shouldReadTheCanonicalRecordOfAShardLine() {
    String line = ViewJson.shardLine("orders", STORED);
    DemandEvent e = LINES.decode(record(bytes(Keys.shardKey("orders", "s1")), bytes(line)));
    assertThat(e.target()).isEqualTo("orders");
    assertThat(JsonCodec.encodeRecord(e.record())).isEqualTo(JsonCodec.encodeRecord(STORED));
    // the String converter hands over text: the same record
    assertThat(LINES.decode(record(Keys.shardKey("orders", "s1"), line))).isEqualTo(e);
  }

  @Test
  void shouldReadEventsOfBothEncodings() {
    DemandEvent ev = new DemandEvent("orders", Events.writer("s1", 3, 1, 3000));
    byte[] key = bytes(ev.key());
    assertThat(EVENTS.decode(record(key, JsonCodec.encodeEvent(ev)))).isEqualTo(ev);
    assertThat(EVENTS.decode(record(key, AvroCodec.encodeEvent(ev)))).isEqualTo(ev);
  }

  @Test
  void shouldIgnoreTombstonesOfShardRecordsButRejectNullEvents() {
    assertThat(LINES.decode(record(bytes("6f/s"), null))).isNull();
    assertThatThrownBy(() -> EVENTS.decode(record(bytes("6f/s"), null)))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage("record has no value");
  }

  @Test
  void shouldRejectWhatThePipelineRejectsWithItsReasons() {
    String line = ViewJson.shardLine("orders", STORED);
    String otherKey = Keys.shardKey("orders", "s2");
    Map<Object[], String> cases =
        Map.of(
            new Object[] {LINES, bytes(otherKey), bytes(line)},
            "key_mismatch",
            new Object[] {LINES, null, bytes(line)},
            "null_key",
            new Object[] {LINES, new byte[] {(byte) 0xff}, bytes(line)},
            "invalid_key",
            new Object[] {LINES, bytes("6f/s1"), bytes("{\"kind\":\"table\"}")},
            "invalid_field",
            new Object[] {LINES, bytes("6f/s1"), bytes("not json")},
            "undecodable",
            new Object[] {
              LINES,
              bytes(Keys.shardKey("orders", "s1")),
              bytes(line.replace("\"record\":{\"v\":1", "\"record\":{\"v\":7"))
            },
            "unknown_version",
            new Object[] {
              EVENTS, bytes("zz/s1"), JsonCodec.encodeEvent(new DemandEvent("o", STORED))
            },
            "invalid_key",
            new Object[] {EVENTS, bytes("6f/s1"), bytes("[1]")},
            "undecodable");
    cases.forEach(
        (c, reason) ->
            assertThatThrownBy(() -> ((SinkRecordDecoder) c[0]).decode(record(c[1], c[2])))
                .as(reason)
                .isInstanceOfSatisfying(
                    InvalidEventException.class,
                    e -> assertThat(e.reason().code()).isEqualTo(reason)));
  }

  @Test
  void shouldStopOnAConverterThatDoesNotPassBytes() {
    assertThatThrownBy(() -> LINES.decode(record(bytes("6f/s1"), Map.of("kind", "shard"))))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("value.converter")
        .hasMessageContaining(EtcdConnectorConfig.BYTE_ARRAY_CONVERTER);
  }
}
