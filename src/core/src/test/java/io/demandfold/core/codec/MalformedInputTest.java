package io.demandfold.core.codec;

import static io.demandfold.core.InvalidEventException.Reason.INVALID_FIELD;
import static io.demandfold.core.InvalidEventException.Reason.NULL_VALUE;
import static io.demandfold.core.InvalidEventException.Reason.UNDECODABLE;
import static io.demandfold.core.InvalidEventException.Reason.UNKNOWN_VERSION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Events;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.InvalidEventException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Malformed inputs, each with the reason and the exact message the decoder must give. */
class MalformedInputTest {
  private static final String OK_TAIL =
      "\"flushed_at_ms\":1,\"writer_epoch\":1,\"source\":\"writer\"}";

  private static final String TRAILING =
      "{\"target\":\"t\",\"shard\":\"s\",\"sealed_through\":1," + OK_TAIL + "x";

  static Stream<Arguments> malformed() {
    byte[] avro = AvroCodec.encodeEvent(new DemandEvent("t", Events.writer("s", 9, 1, 1)));
    byte[] negativeAvro =
        AvroCodec.encodeEvent(new DemandEvent("t", Events.writer("s", 9, 1, 1))).clone();
    return Stream.of(
        json(
            "not JSON at all",
            "hello",
            UNDECODABLE,
            "neither Avro single-object encoding (C3 01 ...) nor a JSON object; first bytes: 68 65 6c 6c 6f"),
        bytes("empty value", new byte[0], UNDECODABLE, "empty value"),
        bytes("null value", null, NULL_VALUE, "record has no value"),
        json(
            "JSON array",
            "[1,2]",
            UNDECODABLE,
            "neither Avro single-object encoding (C3 01 ...) nor a JSON object; first bytes: 5b 31 2c 32 5d"),
        json(
            "truncated JSON",
            "{\"target\":\"t\",\"shard\":",
            UNDECODABLE,
            "malformed JSON at line 1 column 23: Unexpected end-of-input within/between Object entries"),
        json(
            "trailing garbage",
            TRAILING,
            UNDECODABLE,
            "malformed JSON at line 1 column "
                + (TRAILING.length() + 1)
                + ": Unrecognized token 'x': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')"),
        json(
            "wrong type for sealed_through",
            "{\"target\":\"t\",\"shard\":\"s\",\"sealed_through\":\"12\"," + OK_TAIL,
            INVALID_FIELD,
            "field 'sealed_through': expected a non-negative integer, got string \"12\""),
        json(
            "float sealed_through",
            "{\"target\":\"t\",\"shard\":\"s\",\"sealed_through\":1.5," + OK_TAIL,
            INVALID_FIELD,
            "field 'sealed_through': expected a non-negative integer, got number 1.5"),
        json(
            "negative sealed_through",
            "{\"target\":\"t\",\"shard\":\"s\",\"sealed_through\":-3," + OK_TAIL,
            INVALID_FIELD,
            "field 'sealed_through' is -3; must be >= 0"),
        json(
            "beyond u64",
            "{\"target\":\"t\",\"shard\":\"s\",\"sealed_through\":18446744073709551616," + OK_TAIL,
            INVALID_FIELD,
            "field 'sealed_through' is 18446744073709551616; out of range 0..9223372036854775807"),
        json(
            "u64 above i64",
            "{\"target\":\"t\",\"shard\":\"s\",\"sealed_through\":9223372036854775808," + OK_TAIL,
            INVALID_FIELD,
            "field 'sealed_through' is 9223372036854775808; out of range 0..9223372036854775807"),
        json(
            "empty shard",
            "{\"target\":\"t\",\"shard\":\"\",\"sealed_through\":1," + OK_TAIL,
            INVALID_FIELD,
            "field 'shard' is empty"),
        json(
            "shard over 256 bytes",
            "{\"target\":\"t\",\"shard\":\""
                + "é".repeat(129)
                + "\",\"sealed_through\":1,"
                + OK_TAIL,
            INVALID_FIELD,
            "field 'shard' is 258 bytes; at most 256"),
        json(
            "target over 1024 bytes",
            "{\"target\":\""
                + "x".repeat(1025)
                + "\",\"shard\":\"s\",\"sealed_through\":1,"
                + OK_TAIL,
            INVALID_FIELD,
            "field 'target' is 1025 bytes; at most 1024"),
        json(
            "missing target",
            "{\"shard\":\"s\",\"sealed_through\":1," + OK_TAIL,
            INVALID_FIELD,
            "missing required field 'target'"),
        json(
            "missing sealed_through",
            "{\"target\":\"t\",\"shard\":\"s\"," + OK_TAIL,
            INVALID_FIELD,
            "missing required field 'sealed_through'"),
        json(
            "unknown source",
            "{\"target\":\"t\",\"shard\":\"s\",\"sealed_through\":1,\"flushed_at_ms\":1,\"writer_epoch\":1,\"source\":\"planner\"}",
            INVALID_FIELD,
            "field 'source' is \"planner\"; expected \"writer\", \"executor\" or \"scan\""),
        json(
            "duplicate field",
            "{\"target\":\"t\",\"shard\":\"s\",\"sealed_through\":1,\"sealed_through\":2,"
                + OK_TAIL,
            INVALID_FIELD,
            "field 'sealed_through' appears more than once"),
        json(
            "sealed_times not an object",
            "{\"target\":\"t\",\"shard\":\"s\",\"sealed_through\":1,\"sealed_times\":[1,2],"
                + OK_TAIL,
            INVALID_FIELD,
            "field 'sealed_times': expected an object of generation to time, got an array"),
        json(
            "sealed_times bad key",
            "{\"target\":\"t\",\"shard\":\"s\",\"sealed_through\":1,\"sealed_times\":{\"07\":5},"
                + OK_TAIL,
            INVALID_FIELD,
            "sealed_times key \"07\" is not a decimal generation in 0..9223372036854775807"),
        json(
            "sealed_times huge time",
            "{\"target\":\"t\",\"shard\":\"s\",\"sealed_through\":1,\"sealed_times\":{\"1\":99999999999999999999},"
                + OK_TAIL,
            INVALID_FIELD,
            "field 'sealed_times[\"1\"]' is 99999999999999999999; out of range for a signed 64-bit integer"),
        json(
            "oversized sealed_times",
            "{\"target\":\"t\",\"shard\":\"s\",\"sealed_through\":1,\"sealed_times\":"
                + bigTimes(4097)
                + ","
                + OK_TAIL,
            INVALID_FIELD,
            "sealed_times has more than 4096 entries"),
        json(
            "merged_epoch without merged_through",
            "{\"target\":\"t\",\"shard\":\"s\",\"sealed_through\":1,\"merged_epoch\":3," + OK_TAIL,
            INVALID_FIELD,
            "field 'merged_epoch' is 3 but 'merged_through' is absent"),
        json(
            "unknown version",
            "{\"v\":999,\"target\":\"t\",\"shard\":\"s\",\"sealed_through\":1," + OK_TAIL,
            UNKNOWN_VERSION,
            "unknown schema version 999"),
        json(
            "version of wrong type",
            "{\"v\":\"1\",\"target\":\"t\",\"shard\":\"s\",\"sealed_through\":1," + OK_TAIL,
            INVALID_FIELD,
            "field 'v': expected an integer, got string \"1\""),
        bytes(
            "invalid UTF-8 in JSON",
            concat("{\"target\":\"", new byte[] {(byte) 0xFF, (byte) 0xFE}, "\",\"shard\":\"s\"}"),
            UNDECODABLE,
            "malformed JSON at line 1 column 28: Invalid UTF-8 start byte 0xff"),
        bytes(
            "truncated Avro",
            Arrays.copyOf(avro, avro.length - 3),
            UNDECODABLE,
            "truncated or malformed Avro payload ("
                + (avro.length - 3)
                + " bytes): ends inside field 'writer_epoch'"),
        bytes(
            "Avro header only",
            Arrays.copyOf(avro, 6),
            UNDECODABLE,
            "truncated Avro payload: 6 bytes, shorter than the 10-byte single-object header"),
        bytes(
            "Avro claims a 1 GiB string",
            hugeStringClaim(avro),
            UNDECODABLE,
            "truncated or malformed Avro payload (16 bytes): field 'target' claims 1073741824"
                + " bytes, 0 remain"),
        bytes(
            "older-schema Avro claims a 1 GiB string",
            hugeStringClaim(historyHeader()),
            UNDECODABLE,
            "truncated or malformed Avro payload (16 bytes): SystemLimitException: String length"
                + " 1073741824 exceeds maximum allowed"),
        bytes(
            "Avro negative sealed_through",
            withNegativeSealed(negativeAvro),
            INVALID_FIELD,
            "field 'sealed_through' is -9; must be >= 0"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  void shouldRejectWithAPreciseMessage(String name, byte[] input, Reason reason, String message) {
    InvalidEventException e =
        catchThrowableOfType(InvalidEventException.class, () -> EventDecoder.decode(input));
    assertThat(e).as(name).isNotNull();
    assertThat(e.getMessage()).isEqualTo(message);
    assertThat(e.reason()).isEqualTo(reason);
  }

  private static Arguments json(String name, String json, Reason reason, String message) {
    return Arguments.of(name, json.getBytes(StandardCharsets.UTF_8), reason, message);
  }

  private static Arguments bytes(String name, byte[] bytes, Reason reason, String message) {
    return Arguments.of(name, bytes, reason, message);
  }

  private static String bigTimes(int n) {
    StringBuilder sb = new StringBuilder("{");
    for (int i = 0; i < n; i++) {
      sb.append(i == 0 ? "" : ",").append('"').append(i).append("\":").append(i);
    }
    return sb.append('}').toString();
  }

  private static byte[] concat(String a, byte[] b, String c) {
    byte[] x = a.getBytes(StandardCharsets.UTF_8);
    byte[] z = c.getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[x.length + b.length + z.length];
    System.arraycopy(x, 0, out, 0, x.length);
    System.arraycopy(b, 0, out, x.length, b.length);
    System.arraycopy(z, 0, out, x.length + b.length, z.length);
    return out;
  }

  /** The single-object header of the first published event schema (schemas/history). */
  private static byte[] historyHeader() {
    long fp =
        org.apache.avro.SchemaNormalization.parsingFingerprint64(AvroCodec.historySchemas().get(0));
    byte[] h = new byte[16];
    h[0] = (byte) 0xC3;
    h[1] = 0x01;
    for (int i = 0; i < 8; i++) {
      h[2 + i] = (byte) (fp >>> (8 * i));
    }
    return h;
  }

  /** The single-object header, v = 1, then a target whose length claims 2^30 bytes. */
  private static byte[] hugeStringClaim(byte[] avro) {
    byte[] h = Arrays.copyOf(avro, 16);
    h[10] = 0x02;
    h[11] = (byte) 0x80;
    h[12] = (byte) 0x80;
    h[13] = (byte) 0x80;
    h[14] = (byte) 0x80;
    h[15] = 0x08;
    return h;
  }

  /**
   * The Avro body starts with v (zig-zag int 1 = 0x02), target "t" (0x02 't'), shard "s" (0x02
   * 's'), then sealed_through 9 (zig-zag 0x12); -9 is zig-zag 0x11.
   */
  private static byte[] withNegativeSealed(byte[] avro) {
    int i = 10 + 1 + 2 + 2;
    assertThat(avro[i]).isEqualTo((byte) 0x12);
    avro[i] = 0x11;
    return avro;
  }
}
