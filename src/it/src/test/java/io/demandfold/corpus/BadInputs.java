package io.demandfold.corpus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.JsonCodec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * The bad-input corpus, {@code src/it/src/test/resources/bad-inputs/corpus.jsonl}: one kind of
 * malformed or hostile Kafka record per line, with the DLQ reason the pipeline must give it. Its
 * {@code README.md} describes the format and lists every kind.
 */
public final class BadInputs {
  static final String RESOURCE = "/bad-inputs/corpus.jsonl";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One kind of bad record: its name, expected reason code, why it is bad, key and value. */
  public record BadInput(String kind, String reason, String why, byte[] key, byte[] value) {
    /** Bytes of key and value together. */
    public int size() {
      return (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
    }

    @Override
    public String toString() {
      return kind + " (" + reason + ", " + size() + " bytes)";
    }
  }

  private BadInputs() {}

  /** Every kind of the corpus, in file order. */
  public static List<BadInput> load() {
    List<BadInput> out = new ArrayList<>();
    try (InputStream in = BadInputs.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource " + RESOURCE);
      }
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      for (String line : text.split("\n")) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode n = JSON.readTree(line);
        out.add(
            new BadInput(
                n.get("kind").asText(),
                n.get("reason").asText(),
                n.get("why").asText(),
                bytes(n.get("key")),
                bytes(n.get("value"))));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** The kinds of at most {@code maxBytes} of key and value, e.g. to mix into a normal stream. */
  public static List<BadInput> small(int maxBytes) {
    return load().stream().filter(b -> b.size() <= maxBytes).toList();
  }

  /** The bytes a key or value specification stands for; see the corpus README. */
  static byte[] bytes(JsonNode spec) {
    if (spec.has("null")) {
      return null;
    }
    if (spec.has("hex")) {
      return HexFormat.of().parseHex(spec.get("hex").asText());
    }
    if (spec.has("avro")) {
      return avro(spec);
    }
    StringBuilder sb = new StringBuilder(spec.get("text").asText());
    if (spec.has("repeat")) {
      sb.append(spec.get("repeat").asText().repeat(spec.get("times").asInt()));
    }
    if (spec.has("seq")) {
      String pattern = spec.get("seq").asText();
      String sep = spec.get("sep").asText();
      for (long i = spec.get("from").asLong(); i <= spec.get("to").asLong(); i++) {
        if (i > spec.get("from").asLong()) {
          sb.append(sep);
        }
        sb.append(pattern.replace("{i}", Long.toString(i)));
      }
    }
    if (spec.has("then")) {
      sb.append(spec.get("then").asText());
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** A valid event in Avro, then changed as the specification says. */
  private static byte[] avro(JsonNode spec) {
    byte[] b =
        AvroCodec.encodeEvent(
            JsonCodec.decodeEvent(spec.get("avro").asText().getBytes(StandardCharsets.UTF_8)));
    if (spec.has("sealed_times")) {
      // the event has no sealed_times: its last byte is the empty array's terminator
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.write(b, 0, b.length - 1);
      long n = spec.get("sealed_times").asLong();
      varLong(out, n);
      for (long g = 1; g <= n; g++) {
        varLong(out, g);
        varLong(out, 1_764_400_000_000L + g);
      }
      out.write(0);
      b = out.toByteArray();
    }
    if (spec.has("cut")) {
      b = Arrays.copyOf(b, b.length - spec.get("cut").asInt());
    }
    if (spec.has("keep")) {
      b = Arrays.copyOf(b, spec.get("keep").asInt());
    }
    if (spec.has("xor")) {
      int at = spec.get("xor").get(0).asInt();
      b[at] ^= (byte) spec.get("xor").get(1).asInt();
    }
    if (spec.has("splice")) {
      JsonNode s = spec.get("splice");
      int at = s.get(0).asInt() < 0 ? b.length + s.get(0).asInt() : s.get(0).asInt();
      byte[] insert = HexFormat.of().parseHex(s.get(2).asText());
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.write(b, 0, at);
      out.write(insert, 0, insert.length);
      int after = at + s.get(1).asInt();
      out.write(b, after, b.length - after);
      b = out.toByteArray();
    }
    if (spec.has("append")) {
      byte[] tail = HexFormat.of().parseHex(spec.get("append").asText());
      byte[] joined = Arrays.copyOf(b, b.length + tail.length);
      System.arraycopy(tail, 0, joined, b.length, tail.length);
      b = joined;
    }
    return b;
  }

  /** Avro's zigzag varint. */
  private static void varLong(ByteArrayOutputStream out, long v) {
    long z = (v << 1) ^ (v >> 63);
    while ((z & ~0x7FL) != 0) {
      out.write((int) ((z & 0x7F) | 0x80));
      z >>>= 7;
    }
    out.write((int) z);
  }
}
