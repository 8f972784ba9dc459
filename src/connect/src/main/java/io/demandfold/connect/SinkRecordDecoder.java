package io.demandfold.connect;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.demandfold.connect.EtcdSinkConfig.Input;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.InvalidEventException.Reason;
import io.demandfold.core.Keys;
import io.demandfold.core.codec.EventDecoder;
import io.demandfold.core.codec.JsonCodec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Reads a sink record into the event it carries, checked as the pipeline checks it: the key must be
 * {@code <hex(target)>/<shard>} of the value ({@link Keys#requireMatch}).
 *
 * <ul>
 *   <li>{@code shard-records}: the value is a shard line ({@code {"kind":"shard","target":T,...,
 *       "record":{...}}}); its {@code record} is the canonical stored record. A tombstone is no
 *       record ({@code null}): the mirror never deletes.
 *   <li>{@code events}: the value is an event, JSON or Avro single-object ({@link EventDecoder}).
 * </ul>
 *
 * A record that cannot be read is an {@link InvalidEventException} with the pipeline's reason
 * codes; a value that is neither bytes nor text means the converters are wrong, which stops the
 * task with a {@link ConnectException} naming the setting.
 */
final class SinkRecordDecoder {
  private static final ObjectMapper MAPPER = new ObjectMapper(JsonCodec.boundedFactory());

  private final Input input;

  SinkRecordDecoder(Input input) {
    this.input = input;
  }

  /**
   * @return the event, or {@code null} for a tombstone of {@code shard-records}
   * @throws InvalidEventException when the record cannot be folded
   */
  DemandEvent decode(SinkRecord record) {
    byte[] value = bytes(record.value(), "value.converter");
    if (value == null && input == Input.SHARD_RECORDS) {
      return null;
    }
    String key = Keys.decode(bytes(record.key(), "key.converter"));
    DemandEvent event = input == Input.EVENTS ? EventDecoder.decode(value) : shardLine(value);
    Keys.requireMatch(key, event);
    return event;
  }

  /** The event of a shard line: its target and its canonical record. */
  static DemandEvent shardLine(byte[] value) {
    if (value == null) {
      throw new InvalidEventException(Reason.NULL_VALUE, "record has no value");
    }
    JsonNode line;
    try {
      line = MAPPER.readTree(value);
    } catch (IOException e) {
      throw new InvalidEventException(
          Reason.UNDECODABLE, "not a shard line: " + firstLine(e.getMessage()));
    }
    if (line == null || !line.isObject()) {
      throw new InvalidEventException(Reason.UNDECODABLE, "not a shard line: not a JSON object");
    }
    JsonNode kind = line.get("kind");
    if (kind == null || !"shard".equals(kind.asText())) {
      throw new InvalidEventException(
          Reason.INVALID_FIELD,
          "not a shard line: field 'kind' is "
              + (kind == null ? "absent" : kind)
              + ", not 'shard'");
    }
    JsonNode target = line.get("target");
    if (target == null || !target.isTextual()) {
      throw new InvalidEventException(
          Reason.INVALID_FIELD, "shard line has no text field 'target'");
    }
    JsonNode record = line.get("record");
    if (record == null || !record.isObject()) {
      throw new InvalidEventException(
          Reason.INVALID_FIELD, "shard line has no object field 'record'");
    }
    try {
      return new DemandEvent(
          target.asText(), JsonCodec.decodeRecord(MAPPER.writeValueAsBytes(record)));
    } catch (JsonProcessingException e) {
      throw new InvalidEventException(Reason.UNDECODABLE, firstLine(e.getMessage()));
    }
  }

  private static byte[] bytes(Object o, String converter) {
    if (o == null || o instanceof byte[]) {
      return (byte[]) o;
    }
    if (o instanceof String s) {
      return s.getBytes(StandardCharsets.UTF_8);
    }
    if (o instanceof ByteBuffer b) {
      byte[] out = new byte[b.remaining()];
      b.duplicate().get(out);
      return out;
    }
    throw new ConnectException(
        "the record's "
            + converter.substring(0, converter.indexOf('.'))
            + " arrived as "
            + o.getClass().getName()
            + ", not bytes: set "
            + converter
            + " to "
            + EtcdConnectorConfig.BYTE_ARRAY_CONVERTER);
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "malformed JSON";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
