package io.demandfold.examples;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/** A serde of a record type as compact JSON. */
final class JsonSerde<T> implements Serde<T> {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Class<T> type;

  JsonSerde(Class<T> type) {
    this.type = type;
  }

  @Override
  public Serializer<T> serializer() {
    return (topic, value) -> {
      try {
        return value == null ? null : JSON.writeValueAsBytes(value);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
  }

  @Override
  public Deserializer<T> deserializer() {
    return (topic, bytes) -> {
      try {
        return bytes == null ? null : JSON.readValue(bytes, type);
      } catch (IOException e) {
        throw new UncheckedIOException(
            "not a " + type.getSimpleName() + ": " + new String(bytes, StandardCharsets.UTF_8), e);
      }
    };
  }
}
