package io.demandfold.core.codec;

import static io.demandfold.core.Events.executor;
import static io.demandfold.core.Events.fold;
import static io.demandfold.core.Events.writer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.UnknownVersionException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonCodecTest {

  @Test
  void shouldWriteCanonicalFieldOrderAndOmitAbsentOptionals() {
    ShardRecord r = fold(executor("s", 40, 40, 1, 4000), writer("s", 60, 2, 6000));
    assertThat(utf8(JsonCodec.encodeRecord(r)))
        .isEqualTo(
            "{\"v\":1,\"shard\":\"s\",\"sealed_through\":60,\"sealed_bytes_through\":0,"
                + "\"merged_through\":40,\"merged_epoch\":1,\"flushed_at_ms\":6000,"
                + "\"writer_epoch\":2,\"source\":\"writer\",\"sealed_times\":{\"60\":6000}}");

    ShardRecord bare =
        fold(executor("s", 3, 1, 1, 10)).toBuilder().mergedThrough((Long) null).build();
    assertThat(utf8(JsonCodec.encodeRecord(bare)))
        .isEqualTo(
            "{\"v\":1,\"shard\":\"s\",\"sealed_through\":3,\"sealed_bytes_through\":0,"
                + "\"merged_through\":null,\"flushed_at_ms\":10,\"writer_epoch\":1,"
                + "\"source\":\"executor\"}");
  }

  @Test
  void shouldPutTargetFirstInEventsOnly() {
    DemandEvent e = new DemandEvent("orders", writer("s", 1, 1, 5));
    assertThat(utf8(JsonCodec.encodeEvent(e))).startsWith("{\"target\":\"orders\",\"v\":1,");
    assertThat(utf8(JsonCodec.encodeRecord(e.record()))).doesNotContain("target");
  }

  @Test
  void shouldSortSealedTimesKeysNumerically() {
    ShardRecord r = fold(writer("s", 100, 1, 100), writer("s", 9, 1, 9), writer("s", 10, 1, 10));
    assertThat(utf8(JsonCodec.encodeRecord(r))).contains("{\"9\":9,\"10\":10,\"100\":100}");
  }

  @Test
  void shouldRoundTripEveryFieldAndEscapeStrings() {
    ShardRecord r =
        fold(writer("s\"\\\n\u0001é", 70, 5, 7000), executor("s\"\\\n\u0001é", 70, 50, 3, 8000))
            .toBuilder()
            .sealedBytesThrough(Long.MAX_VALUE)
            .build();
    DemandEvent e = new DemandEvent("tåble/\t", r);
    byte[] json = JsonCodec.encodeEvent(e);
    assertThat(utf8(json)).contains("\"s\\\"\\\\\\n\\u0001é\"").contains("\"tåble/\\t\"");
    DemandEvent back = JsonCodec.decodeEvent(json);
    assertThat(back).isEqualTo(e);
    assertThat(JsonCodec.encodeEvent(back)).isEqualTo(json);
    assertThat(JsonCodec.decodeRecord(JsonCodec.encodeRecord(r))).isEqualTo(r);
  }

  @Test
  void shouldIgnoreUnknownFieldsOfAnyShape() {
    String json =
        "{\"future\":{\"a\":[1,2,{\"b\":null}]},\"target\":\"t\",\"shard\":\"s\","
            + "\"sealed_through\":3,\"flushed_at_ms\":1,\"writer_epoch\":1,\"source\":\"scan\","
            + "\"note\":\"x\",\"ratio\":0.5}";
    DemandEvent e = JsonCodec.decodeEvent(json.getBytes(StandardCharsets.UTF_8));
    assertThat(e.record().sealedThrough()).isEqualTo(3);
    assertThat(e.target()).isEqualTo("t");
  }

  @Test
  void shouldReadAStoredRecordAndIgnoreATarget() {
    String json =
        "{\"v\":0,\"target\":\"t\",\"shard\":\"s\",\"sealed_through\":3,\"merged_through\":null,"
            + "\"flushed_at_ms\":1,\"writer_epoch\":1,\"source\":\"writer\"}";
    assertThat(JsonCodec.decodeRecord(json.getBytes(StandardCharsets.UTF_8)).sealedThrough())
        .isEqualTo(3);
  }

  @Test
  void shouldReportAnUnknownVersionBeforeAnyOtherFieldError() {
    String json = "{\"v\":2,\"shard\":17,\"sealed_through\":\"x\"}";
    assertThatThrownBy(() -> JsonCodec.decodeRecord(json.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(UnknownVersionException.class)
        .hasMessage("unknown schema version 2");
  }

  private static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
