package io.demandfold.core;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;

/**
 * Keys of the event topic and of etcd: {@code <hex>/<shard>} where {@code <hex>} is the lowercase
 * hex of the target's UTF-8 bytes (docs/model.md section 1).
 *
 * <p>Targets and shards are ordered by their UTF-8 bytes ({@link #UTF8_ORDER}), which is also the
 * order of the hex keys in etcd.
 */
public final class Keys {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /**
   * Orders strings by their UTF-8 bytes, unsigned, without encoding them: UTF-8 keeps the order of
   * code points, so the first code point that differs decides.
   */
  public static final Comparator<String> UTF8_ORDER = Keys::compareUtf8;

  private static int compareUtf8(String a, String b) {
    int n = Math.min(a.length(), b.length());
    for (int i = 0; i < n; i++) {
      char x = a.charAt(i);
      char y = b.charAt(i);
      if (x != y) {
        if (Character.isSurrogate(x) || Character.isSurrogate(y)) {
          return Integer.compare(a.codePointAt(i), b.codePointAt(i));
        }
        return Character.compare(x, y);
      }
    }
    return Integer.compare(a.length(), b.length());
  }

  private Keys() {}

  /**
   * A Kafka or etcd key from its bytes: strict UTF-8.
   *
   * @throws InvalidEventException {@link InvalidEventException.Reason#NULL_KEY} when there is no
   *     key, {@link InvalidEventException.Reason#INVALID_KEY} when it is not valid UTF-8
   */
  public static String decode(byte[] key) {
    if (key == null) {
      throw new InvalidEventException(InvalidEventException.Reason.NULL_KEY, "record has no key");
    }
    try {
      return Utf8.decode(key);
    } catch (CharacterCodingException e) {
      throw new InvalidEventException(
          InvalidEventException.Reason.INVALID_KEY, "key is not valid UTF-8");
    }
  }

  /** Lowercase hex of the UTF-8 bytes of {@code target}. */
  public static String hex(String target) {
    byte[] bytes = target.getBytes(StandardCharsets.UTF_8);
    char[] out = new char[bytes.length * 2];
    for (int i = 0; i < bytes.length; i++) {
      out[2 * i] = HEX[(bytes[i] >> 4) & 0xF];
      out[2 * i + 1] = HEX[bytes[i] & 0xF];
    }
    return new String(out);
  }

  /** The key of a shard: {@code <hex(target)>/<shard>}. */
  public static String shardKey(String target, String shard) {
    return hex(target) + '/' + shard;
  }

  /**
   * Decodes lowercase hex back into the target it names.
   *
   * @throws IllegalArgumentException when {@code hex} is empty, of odd length, not lowercase hex,
   *     or not the hex of valid UTF-8
   */
  public static String unhex(String hex) {
    int n = hex.length();
    if (n == 0 || (n & 1) != 0) {
      throw new IllegalArgumentException(
          "'" + abbreviate(hex) + "' is not lowercase hex of a target");
    }
    byte[] bytes = new byte[n / 2];
    for (int i = 0; i < n; i += 2) {
      int hi = nibble(hex.charAt(i));
      int lo = nibble(hex.charAt(i + 1));
      if (hi < 0 || lo < 0) {
        throw new IllegalArgumentException(
            "'" + abbreviate(hex) + "' is not lowercase hex of a target");
      }
      bytes[i / 2] = (byte) ((hi << 4) | lo);
    }
    try {
      return Utf8.decode(bytes);
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(
          "'" + abbreviate(hex) + "' is not the hex of UTF-8 text", e);
    }
  }

  /**
   * Splits a shard key into its target and shard.
   *
   * @throws IllegalArgumentException when the key is not {@code <hex>/<shard>} with a non-empty
   *     shard
   */
  public static ShardKey parse(String key) {
    int slash = key.indexOf('/');
    if (slash <= 0 || slash == key.length() - 1) {
      throw new IllegalArgumentException(
          "key '" + abbreviate(key) + "' is not <hex(target)>/<shard>");
    }
    String target = unhex(key.substring(0, slash));
    return new ShardKey(target, key.substring(slash + 1));
  }

  /**
   * Checks that a Kafka key is {@code <hex(target)>/<shard>} of {@code event}.
   *
   * @throws InvalidEventException {@link InvalidEventException.Reason#INVALID_KEY} when the key is
   *     not of that form, {@link InvalidEventException.Reason#KEY_MISMATCH} when it names another
   *     target or shard
   */
  public static void requireMatch(String key, DemandEvent event) {
    if (isKeyOf(key, event.target(), event.record().shard())) {
      return;
    }
    ShardKey parsed;
    try {
      parsed = parse(key);
    } catch (IllegalArgumentException e) {
      throw new InvalidEventException(InvalidEventException.Reason.INVALID_KEY, e.getMessage());
    }
    if (!parsed.target().equals(event.target()) || !parsed.shard().equals(event.record().shard())) {
      throw new InvalidEventException(
          InvalidEventException.Reason.KEY_MISMATCH,
          "key '"
              + abbreviate(key)
              + "' does not match the value's target and shard (expected '"
              + abbreviate(event.key())
              + "')");
    }
  }

  /**
   * Whether {@code key} is {@code <hex(target)>/<shard>}, checked without building it, for an ASCII
   * target (every key the fold sees twice a second); {@code false} for any other target, which the
   * caller then checks the long way.
   */
  private static boolean isKeyOf(String key, String target, String shard) {
    int t = target.length();
    if (key.length() != 2 * t + 1 + shard.length() || key.charAt(2 * t) != '/') {
      return false;
    }
    for (int i = 0; i < t; i++) {
      char c = target.charAt(i);
      if (c >= 0x80 || key.charAt(2 * i) != HEX[c >> 4] || key.charAt(2 * i + 1) != HEX[c & 0xF]) {
        return false;
      }
    }
    return key.regionMatches(2 * t + 1, shard, 0, shard.length());
  }

  /**
   * The partition of a topic of {@code partitions} partitions that Kafka's default partitioner (and
   * every client that partitions like Java clients: murmur2 of the key's UTF-8 bytes) puts {@code
   * key} in. An ASCII key is hashed without being encoded.
   */
  public static int partition(String key, int partitions) {
    int n = key.length();
    for (int i = 0; i < n; i++) {
      if (key.charAt(i) >= 0x80) {
        return (murmur2(key.getBytes(StandardCharsets.UTF_8)) & 0x7fffffff) % partitions;
      }
    }
    return (murmur2Ascii(key) & 0x7fffffff) % partitions;
  }

  /** Kafka's murmur2 (org.apache.kafka.common.utils.Utils#murmur2) of {@code data}. */
  @SuppressWarnings("fallthrough") // the tail bytes, as Kafka's murmur2
  static int murmur2(byte[] data) {
    int length = data.length;
    int h = MURMUR_SEED ^ length;
    int length4 = length / 4;
    for (int i = 0; i < length4; i++) {
      int i4 = i * 4;
      int k =
          (data[i4] & 0xff)
              + ((data[i4 + 1] & 0xff) << 8)
              + ((data[i4 + 2] & 0xff) << 16)
              + ((data[i4 + 3] & 0xff) << 24);
      h = murmurMix(h, k);
    }
    int tail = length4 * 4;
    switch (length % 4) {
      case 3:
        h ^= (data[tail + 2] & 0xff) << 16;
      // fall through
      case 2:
        h ^= (data[tail + 1] & 0xff) << 8;
      // fall through
      case 1:
        h ^= data[tail] & 0xff;
        h *= MURMUR_M;
      // fall through
      default:
        break;
    }
    return murmurFinish(h);
  }

  /** {@link #murmur2} of an ASCII string's bytes, read from its chars. */
  @SuppressWarnings("fallthrough") // the tail bytes, as Kafka's murmur2
  private static int murmur2Ascii(String s) {
    int length = s.length();
    int h = MURMUR_SEED ^ length;
    int length4 = length / 4;
    for (int i = 0; i < length4; i++) {
      int i4 = i * 4;
      int k =
          s.charAt(i4)
              + (s.charAt(i4 + 1) << 8)
              + (s.charAt(i4 + 2) << 16)
              + (s.charAt(i4 + 3) << 24);
      h = murmurMix(h, k);
    }
    int tail = length4 * 4;
    switch (length % 4) {
      case 3:
        h ^= s.charAt(tail + 2) << 16;
      // fall through
      case 2:
        h ^= s.charAt(tail + 1) << 8;
      // fall through
      case 1:
        h ^= s.charAt(tail);
        h *= MURMUR_M;
      // fall through
      default:
        break;
    }
    return murmurFinish(h);
  }

  private static final int MURMUR_SEED = 0x9747b28c;
  private static final int MURMUR_M = 0x5bd1e995;

  private static int murmurMix(int h, int k) {
    k *= MURMUR_M;
    k ^= k >>> 24;
    k *= MURMUR_M;
    h *= MURMUR_M;
    return h ^ k;
  }

  private static int murmurFinish(int h) {
    h ^= h >>> 13;
    h *= MURMUR_M;
    h ^= h >>> 15;
    return h;
  }

  /** A parsed shard key. */
  public record ShardKey(String target, String shard) {}

  /**
   * At most 80 characters of {@code s}, with what is not plainly visible escaped ({@link
   * Printable#escape}), for error messages about hostile input.
   */
  public static String abbreviate(String s) {
    return Printable.escape(s.length() <= 80 ? s : s.substring(0, 77) + "...");
  }

  private static int nibble(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    return -1;
  }
}
