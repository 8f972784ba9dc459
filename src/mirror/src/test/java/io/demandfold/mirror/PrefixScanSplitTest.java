package io.demandfold.mirror;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link PrefixScan#split}: the ranges it cuts follow one another in key order and hold exactly the
 * keys of the range cut, over keys of the bytes where the cases turn (0x00, 0x01, 0xFE, 0xFF and a
 * letter), and it cuts in two or more whenever the range can hold more than one key.
 */
class PrefixScanSplitTest {
  private static final Byte[] BYTES = {0x00, 0x01, (byte) 'a', (byte) 0xFE, (byte) 0xFF};

  @Property(tries = 3000)
  void shouldCutARangeIntoContiguousRangesThatHoldExactlyItsKeys(
      @ForAll("keys") byte[] a, @ForAll("keys") byte[] b, @ForAll("keySets") Set<byte[]> keys) {
    byte[] from = Arrays.compareUnsigned(a, b) <= 0 ? a : b;
    byte[] end = Arrays.compareUnsigned(a, b) <= 0 ? b : a;
    if (from.length == 0) {
      return; // a scan's range starts at a prefix or after a key, never at the empty key
    }
    if (end.length == 0) {
      end = new byte[] {0}; // the end of the key space, as etcd names it
    }
    List<byte[][]> pieces = PrefixScan.split(from, end);
    boolean toTheEnd = end.length == 1 && end[0] == 0;
    if (!toTheEnd && Arrays.compareUnsigned(from, end) >= 0) {
      assertThat(pieces).isEmpty();
      return;
    }
    assertThat(pieces).isNotEmpty();
    assertThat(pieces.get(0)[0]).isEqualTo(from);
    assertThat(pieces.get(pieces.size() - 1)[1]).isEqualTo(end);
    for (int i = 0; i < pieces.size(); i++) {
      byte[][] p = pieces.get(i);
      if (!(p[1].length == 1 && p[1][0] == 0)) {
        assertThat(Arrays.compareUnsigned(p[0], p[1])).as("piece %d is not empty", i).isLessThan(0);
      }
      if (i > 0) {
        assertThat(p[0])
            .as("piece %d starts where %d ends", i, i - 1)
            .isEqualTo(pieces.get(i - 1)[1]);
      }
    }
    List<byte[]> inRange = new ArrayList<>();
    List<byte[]> inPieces = new ArrayList<>();
    for (byte[] k : sorted(keys)) {
      if (in(k, from, end)) {
        inRange.add(k);
      }
      for (byte[][] p : pieces) {
        if (in(k, p[0], p[1])) {
          inPieces.add(k);
        }
      }
    }
    assertThat(inPieces).containsExactlyElementsOf(inRange);
    boolean oneKeyAtMost = Arrays.equals(end, Arrays.copyOf(from, from.length + 1));
    if (!toTheEnd && !oneKeyAtMost) {
      assertThat(pieces.size()).as("cut of [%s, %s)", hex(from), hex(end)).isGreaterThan(1);
    }
  }

  /**
   * Cutting, again and again, every piece that still holds two or more of a finite set of keys
   * ends, as the walk's cutting of ranges that still hold many keys must: two nested cuts fix at
   * least one more byte of the keys a piece holds, so no piece is cut more than twice per byte of
   * the longest key (and once more), and in the end every key is in exactly one piece. (Cutting a
   * piece for ever without keys to tell apart need not end: a range that can hold two keys holds
   * infinitely many.)
   */
  @Property(tries = 300)
  void shouldSeparateTheKeysOfAPrefixRangeAfterFinitelyManyCuts(
      @ForAll("keys") byte[] prefix, @ForAll("keySets") Set<byte[]> suffixes) {
    byte[] end = PrefixScan.prefixEnd(prefix);
    if (end.length == 1 && end[0] == 0) {
      return;
    }
    List<byte[]> keys = new ArrayList<>();
    if (prefix.length > 0) {
      keys.add(prefix);
    }
    for (byte[] s : suffixes) {
      byte[] k = Arrays.copyOf(prefix, prefix.length + s.length);
      System.arraycopy(s, 0, k, prefix.length, s.length);
      if (keys.stream().noneMatch(x -> Arrays.equals(x, k))) {
        keys.add(k);
      }
    }
    int longest = keys.stream().mapToInt(k -> k.length).max().orElse(0);
    int maxDepth = 2 * longest + 2;
    List<byte[][]> ends = new ArrayList<>();
    ArrayDeque<Object[]> work = new ArrayDeque<>();
    work.push(new Object[] {prefix, end, 0});
    while (!work.isEmpty()) {
      Object[] w = work.pop();
      byte[] from = (byte[]) w[0];
      byte[] to = (byte[]) w[1];
      int depth = (int) w[2];
      long held = keys.stream().filter(k -> in(k, from, to)).count();
      if (held <= 1) {
        ends.add(new byte[][] {from, to});
        continue;
      }
      if (depth == maxDepth) {
        fail(
            "[%s, %s) still holds %d of the keys after %d nested cuts of the range of prefix %s",
            hex(from), hex(to), held, depth, hex(prefix));
      }
      List<byte[][]> pieces = PrefixScan.split(from, to);
      assertThat(pieces)
          .as("the cut of [%s, %s), of %d keys", hex(from), hex(to), held)
          .hasSizeGreaterThan(1);
      for (byte[][] p : pieces) {
        work.push(new Object[] {p[0], p[1], depth + 1});
      }
    }
    for (byte[] k : keys) {
      assertThat(ends.stream().filter(p -> in(k, p[0], p[1])).count())
          .as("pieces holding %s", hex(k))
          .isEqualTo(1);
    }
  }

  @Provide
  Arbitrary<byte[]> keys() {
    return Arbitraries.of(BYTES).list().ofMaxSize(4).map(PrefixScanSplitTest::bytes);
  }

  @Provide
  Arbitrary<Set<byte[]>> keySets() {
    return keys().filter(k -> k.length > 0).set().ofMaxSize(40);
  }

  private static boolean in(byte[] k, byte[] from, byte[] end) {
    boolean toTheEnd = end.length == 1 && end[0] == 0;
    return Arrays.compareUnsigned(k, from) >= 0 && (toTheEnd || Arrays.compareUnsigned(k, end) < 0);
  }

  private static List<byte[]> sorted(Set<byte[]> keys) {
    List<byte[]> l = new ArrayList<>(keys);
    l.sort(Arrays::compareUnsigned);
    return l;
  }

  private static byte[] bytes(List<Byte> l) {
    byte[] b = new byte[l.size()];
    for (int i = 0; i < b.length; i++) {
      b[i] = l.get(i);
    }
    return b;
  }

  private static String hex(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) {
      s.append(String.format("%02x", x & 0xFF));
    }
    return s.toString();
  }
}
