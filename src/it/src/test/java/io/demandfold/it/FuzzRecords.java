package io.demandfold.it;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Limits;
import io.demandfold.core.SealedTimes;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.Source;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.JsonCodec;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * Random records of the events topic from one seed, the same sequence for the same seed: valid
 * events (JSON or Avro, names with control characters and at their size limits, extreme numbers,
 * the most {@code sealed_times} allowed) and every kind of damage to them. Whether a record is
 * valid is not decided here: {@link FuzzIT#classify} asks the pipeline's own checks.
 */
final class FuzzRecords {
  /**
   * Largest key and value together: the producer's {@code max.request.size} and the topic's {@code
   * max.message.bytes} (1 MiB and a little) less the record's own framing.
   */
  static final int LIMIT = 1_048_000;

  private static final long T = 1_764_400_000_000L;
  private static final String[] TARGETS = {
    "orders",
    "logs",
    "t\u0007bell",
    "t\r\nINFO forged",
    "日本語のテーブル",
    "emoji-\uD83D\uDE00",
    "\u202eright-to-left",
    "with/slash and space",
    "\u0000nul",
    "x".repeat(Limits.MAX_TARGET_BYTES),
    "é".repeat(Limits.MAX_TARGET_BYTES / 2),
    "t-11",
  };
  private static final String[] SHARDS = {
    "s0",
    "s1",
    "s2",
    "s/with/slash",
    "s\u001b[31mred",
    "\t",
    "s".repeat(Limits.MAX_SHARD_BYTES),
    "ü".repeat(Limits.MAX_SHARD_BYTES / 2),
  };

  /** One record, what kind of fuzzing made it. */
  record Fuzzed(String kind, byte[] key, byte[] value, List<Header> headers) {
    long size() {
      long n = (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
      for (Header h : headers) {
        n += h.key().length() + (h.value() == null ? 0 : h.value().length);
      }
      return n;
    }
  }

  private final Random rnd;

  FuzzRecords(long seed) {
    this.rnd = new Random(seed);
  }

  /** The next record. */
  Fuzzed next() {
    DemandEvent e = validEvent();
    byte[] key = e.key().getBytes(StandardCharsets.UTF_8);
    boolean avro = rnd.nextBoolean();
    byte[] value = avro ? AvroCodec.encodeEvent(e) : JsonCodec.encodeEvent(e);
    List<Header> headers = headers();
    int dice = rnd.nextInt(1000);
    if (dice < 450) {
      return new Fuzzed(avro ? "valid-avro" : "valid-json", key, value, headers);
    }
    if (dice < 520) {
      return new Fuzzed("truncated", key, Arrays.copyOf(value, rnd.nextInt(value.length)), headers);
    }
    if (dice < 620) {
      return new Fuzzed("mutated", key, mutate(value), headers);
    }
    if (dice < 660) {
      return new Fuzzed("random-bytes", randomKey(key), bytes(rnd.nextInt(300)), headers);
    }
    if (dice < 700) {
      DemandEvent other = validEvent();
      return new Fuzzed("other-key", other.key().getBytes(StandardCharsets.UTF_8), value, headers);
    }
    if (dice < 730) {
      byte[][] kv = {key, null, new byte[0], bytes(1 + rnd.nextInt(20))};
      int k = rnd.nextInt(4);
      return new Fuzzed(
          "null-or-odd-key", kv[k], k == 1 || rnd.nextBoolean() ? value : null, headers);
    }
    if (dice < 790) {
      return json(e, key, headers);
    }
    if (dice < 792) {
      return huge(e, key);
    }
    if (dice < 800) {
      return maps(e, key, headers);
    }
    if (dice < 830) {
      return nested(e, key, headers);
    }
    if (dice < 845) {
      return new Fuzzed(
          "large-headers", key, rnd.nextBoolean() ? value : mutate(value), largeHeaders());
    }
    if (dice < 920) {
      return new Fuzzed("avro-spliced", key, splice(AvroCodec.encodeEvent(e)), headers);
    }
    return new Fuzzed("json-spliced", key, splice(JsonCodec.encodeEvent(e)), headers);
  }

  /** A valid event: random watermarks, now and then at their extremes. */
  private DemandEvent validEvent() {
    String target = TARGETS[rnd.nextInt(TARGETS.length)];
    String shard = SHARDS[rnd.nextInt(SHARDS.length)];
    long sealed = extreme() ? Long.MAX_VALUE - rnd.nextInt(3) : rnd.nextInt(400);
    ShardRecord.Builder b =
        ShardRecord.builder(shard)
            .sealedThrough(sealed)
            .sealedBytesThrough(extreme() ? Long.MAX_VALUE : (long) rnd.nextInt(1 << 30) * 64)
            .writerEpoch(extreme() ? Long.MAX_VALUE : rnd.nextInt(4))
            .flushedAtMs(
                extreme()
                    ? (rnd.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE)
                    : T + rnd.nextInt(1_000_000))
            .source(Source.values()[rnd.nextInt(Source.values().length)]);
    if (rnd.nextInt(3) > 0) {
      b.mergedThrough(extreme() ? Long.MAX_VALUE : (long) rnd.nextInt(450));
      if (rnd.nextBoolean()) {
        b.mergedEpoch(extreme() ? Long.MAX_VALUE : rnd.nextInt(4));
      }
    }
    java.util.TreeMap<Long, Long> picked = new java.util.TreeMap<>();
    int n = rnd.nextInt(200) == 0 ? Limits.MAX_EVENT_SEALED_TIMES : rnd.nextInt(8);
    for (int i = 0; i < n; i++) {
      long g = n > 100 ? i : rnd.nextInt(400);
      picked.put(g, extreme() ? Long.MAX_VALUE : T + rnd.nextInt(1_000_000));
    }
    SealedTimes.Builder times = new SealedTimes.Builder();
    picked.forEach(times::put);
    return new DemandEvent(target, b.sealedTimes(times.build()).build());
  }

  private boolean extreme() {
    return rnd.nextInt(40) == 0;
  }

  /** Hand-written JSON: odd numbers, versions, escapes, control characters, duplicates. */
  private Fuzzed json(DemandEvent e, byte[] key, List<Header> headers) {
    String canonical = new String(JsonCodec.encodeEvent(e), StandardCharsets.UTF_8);
    String body = canonical.substring(1, canonical.length() - 1);
    String[] extras = {
      "\"v\":0",
      "\"v\":1",
      "\"v\":2",
      "\"v\":999",
      "\"v\":100000000000000000000",
      "\"sealed_through\":9223372036854775808",
      "\"sealed_through\":-1",
      "\"sealed_through\":1.5",
      "\"sealed_through\":\"7\"",
      "\"writer_epoch\":true",
      "\"merged_through\":null",
      "\"merged_epoch\":3",
      "\"source\":\"planner\"",
      "\"sealed_times\":{\"07\":1}",
      "\"sealed_times\":[]",
      "\"unknown\":{\"a\":[1,2,{\"b\":null}]}",
      "\"shard\":\"\\ud800\"",
      "\"target\":\"\\udfff\"",
      "\"shard\":\"raw\u0001control\"",
      "\"note\":\"escaped \\u0007 bell\"",
      "\"target\":\"\"",
      "\"shard\":" + (rnd.nextBoolean() ? "{}" : "[]"),
    };
    String extra = extras[rnd.nextInt(extras.length)];
    String text =
        rnd.nextBoolean() ? "{" + extra + "," + body + "}" : "{" + body + "," + extra + "}";
    return new Fuzzed("json-" + extra.replaceAll("[^a-z_]", ""), key, utf8(text), headers);
  }

  /**
   * A record up to the size limit (half of them right at it, so that their dead letters must be cut
   * to fit the DLQ topic): padding in an unknown field, a long target, or random bytes.
   */
  private Fuzzed huge(DemandEvent e, byte[] key) {
    int total =
        rnd.nextBoolean() ? LIMIT - rnd.nextInt(50) : 100_000 + rnd.nextInt(LIMIT - 100_000);
    int size = total - key.length;
    String canonical = new String(JsonCodec.encodeEvent(e), StandardCharsets.UTF_8);
    switch (rnd.nextInt(3)) {
      case 0:
        {
          String head = "{\"padding\":\"";
          String tail = "\"," + canonical.substring(1);
          String pad = "p".repeat(Math.max(0, size - head.length() - utf8(tail).length));
          return new Fuzzed("huge-valid-padding", key, utf8(head + pad + tail), List.of());
        }
      case 1:
        {
          String head = "{\"target\":\"";
          String tail = "\"," + canonical.substring(1);
          String t = "t".repeat(Math.max(0, size - head.length() - utf8(tail).length));
          return new Fuzzed("huge-target", key, utf8(head + t + tail), List.of());
        }
      default:
        return new Fuzzed("huge-random", key, bytes(size), List.of());
    }
  }

  /** Large maps: sealed_times at and over the limit, thousands of unknown fields. */
  private Fuzzed maps(DemandEvent e, byte[] key, List<Header> headers) {
    String canonical = new String(JsonCodec.encodeEvent(e), StandardCharsets.UTF_8);
    StringBuilder sb = new StringBuilder("{");
    int kind = rnd.nextInt(3);
    int n =
        kind == 0
            ? Limits.MAX_EVENT_SEALED_TIMES + rnd.nextInt(2000) - 1000
            : 5_000 + rnd.nextInt(20_000);
    if (kind == 2) {
      for (int i = 0; i < n; i++) {
        sb.append("\"u").append(i).append("\":").append(i).append(',');
      }
      sb.append(canonical, 1, canonical.length());
      return new Fuzzed("many-unknown-fields", key, utf8(sb.toString()), headers);
    }
    String body =
        canonical
            .substring(1, canonical.length() - 1)
            .replaceAll(",\"sealed_times\":\\{[^}]*\\}", "");
    sb.append(body).append(",\"sealed_times\":{");
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append('"').append(i + 1).append("\":").append(T + i);
    }
    sb.append("}}");
    return new Fuzzed(
        "sealed-times-" + (n > Limits.MAX_EVENT_SEALED_TIMES ? "over" : "within"),
        key,
        utf8(sb.toString()),
        headers);
  }

  /** An unknown field nested from a few levels deep to far beyond the reader's depth limit. */
  private Fuzzed nested(DemandEvent e, byte[] key, List<Header> headers) {
    String canonical = new String(JsonCodec.encodeEvent(e), StandardCharsets.UTF_8);
    int depth = rnd.nextBoolean() ? 1 + rnd.nextInt(80) : 1000 + rnd.nextInt(20_000);
    String open = rnd.nextBoolean() ? "[" : "{\"a\":";
    String close = open.equals("[") ? "]" : "}";
    String deep = open.repeat(depth) + "1" + close.repeat(rnd.nextInt(4) == 0 ? depth / 2 : depth);
    return new Fuzzed(
        "nested-" + (depth > 64 ? "deep" : "shallow"),
        key,
        utf8("{\"deep\":" + deep + "," + canonical.substring(1)),
        headers);
  }

  /** Flips, inserts or deletes a few bytes. */
  private byte[] mutate(byte[] v) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(v.length + 8);
    out.writeBytes(v);
    byte[] b = out.toByteArray();
    int changes = 1 + rnd.nextInt(3);
    for (int i = 0; i < changes && b.length > 0; i++) {
      int at = rnd.nextInt(b.length);
      switch (rnd.nextInt(3)) {
        case 0:
          b[at] ^= (byte) (1 << rnd.nextInt(8));
          break;
        case 1:
          b =
              concat(
                  Arrays.copyOf(b, at),
                  bytes(1 + rnd.nextInt(3)),
                  Arrays.copyOfRange(b, at, b.length));
          break;
        default:
          b =
              concat(
                  Arrays.copyOf(b, at),
                  new byte[0],
                  Arrays.copyOfRange(b, Math.min(b.length, at + 1), b.length));
      }
    }
    return b;
  }

  /** Replaces a run of bytes by one of the values that break decoders. */
  private byte[] splice(byte[] v) {
    byte[][] hostile = {
      {(byte) 0xff, (byte) 0xfe},
      {(byte) 0xed, (byte) 0xa0, (byte) 0x80},
      {(byte) 0xfe, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f},
      {
        (byte) 0x81,
        (byte) 0x80,
        (byte) 0x80,
        (byte) 0x80,
        (byte) 0x80,
        (byte) 0x80,
        (byte) 0x80,
        (byte) 0x80,
        (byte) 0x80,
        (byte) 0x80,
        0x01
      },
      {0x00},
      {0x07, 0x1b, 0x7f},
      {(byte) 0xc3, 0x01},
    };
    byte[] h = hostile[rnd.nextInt(hostile.length)];
    int at = rnd.nextInt(v.length);
    int cut = Math.min(v.length - at, rnd.nextInt(4));
    return concat(Arrays.copyOf(v, at), h, Arrays.copyOfRange(v, at + cut, v.length));
  }

  private byte[] randomKey(byte[] key) {
    return rnd.nextBoolean() ? key : bytes(rnd.nextInt(40));
  }

  private List<Header> headers() {
    int n = rnd.nextInt(10) < 7 ? 0 : 1 + rnd.nextInt(4);
    List<Header> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new RecordHeader(name(), rnd.nextInt(10) == 0 ? null : bytes(rnd.nextInt(64))));
    }
    return out;
  }

  private List<Header> largeHeaders() {
    List<Header> out = new ArrayList<>(headers());
    out.add(new RecordHeader("blob-" + name(), bytes(1_000 + rnd.nextInt(100_000))));
    return out;
  }

  private String name() {
    StringBuilder sb = new StringBuilder();
    int n = rnd.nextInt(12);
    for (int i = 0; i < n; i++) {
      sb.append((char) (rnd.nextInt(5) == 0 ? rnd.nextInt(0x20) : 'a' + rnd.nextInt(26)));
    }
    return sb.toString();
  }

  private byte[] bytes(int n) {
    byte[] b = new byte[n];
    rnd.nextBytes(b);
    return b;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
