package io.demandfold.docs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The documented formats of the output topics ({@code schemas/*.schema.json}), checked with a JSON
 * Schema (draft 2020-12) validator: keys as strings, values as JSON documents.
 *
 * <pre>{@code
 * List<String> errors = OutputSchemas.SHARD_LINE.errors(value);   // empty: valid
 * }</pre>
 */
public enum OutputSchemas {
  SHARD_KEY("shard-key", false),
  SHARD_LINE("shard-line", true),
  TABLE_KEY("table-key", false),
  TABLE_LINE("table-line", true);

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path file;
  private final boolean json;
  private final Schema schema;

  OutputSchemas(String name, boolean json) {
    this.file = Path.of("schemas", name + ".schema.json");
    this.json = json;
    SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    try (InputStream in = Files.newInputStream(file)) {
      this.schema = registry.getSchema(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The schema file. */
  public Path file() {
    return file;
  }

  /**
   * What is wrong with {@code bytes} (a key's UTF-8 text, or a value's JSON) by this schema; empty
   * when it is valid.
   */
  public List<String> errors(byte[] bytes) {
    JsonNode node;
    if (json) {
      try {
        node = JSON.readTree(bytes);
      } catch (IOException e) {
        return List.of("not JSON: " + e.getMessage());
      }
    } else {
      node = TextNode.valueOf(new String(bytes, StandardCharsets.UTF_8));
    }
    List<String> out = new ArrayList<>();
    for (Error e : schema.validate(node)) {
      out.add(e.toString());
    }
    return out;
  }

  /**
   * Every problem of {@code records} of an output topic, their keys by {@code key} and values by
   * {@code value}, each naming the record's partition and offset; empty when all are valid.
   */
  public static List<String> errors(
      List<ConsumerRecord<byte[], byte[]>> records, OutputSchemas key, OutputSchemas value) {
    List<String> out = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      String where = r.topic() + "-" + r.partition() + "@" + r.offset() + ": ";
      if (r.key() == null || r.value() == null) {
        out.add(where + "null key or value");
        continue;
      }
      key.errors(r.key()).forEach(e -> out.add(where + "key: " + e));
      value.errors(r.value()).forEach(e -> out.add(where + "value: " + e));
    }
    return out;
  }

  /** {@link #errors(byte[])} of a string. */
  public List<String> errors(String text) {
    return errors(text.getBytes(StandardCharsets.UTF_8));
  }
}
