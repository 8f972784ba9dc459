package io.demandfold.core;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;

/**
 * How far the fold of one target's table has come: what a table record written without its entries
 * (derived-only) carries so that a stale writer cannot put back an older view of it.
 *
 * <p>The progress of a set of table entries is the sum over them of each field of {@link
 * TableShard#AGE_ORDER}, one more field in front that counts the entries, compared field by field
 * in that order: {@value #SIZE} integers, in order the entries, those with a {@code merged} mark,
 * the {@code merged} values and epochs, the {@code sealed} values and epochs, {@code sealed_bytes},
 * {@code kept.count}, {@code kept.lowest}, the entries with an oldest pending time, and minus the
 * sums of the oldest pending times and generations (an earlier time is later in the order). An
 * entry's fields compared this way are its {@code AGE_ORDER}, and sums of such vectors, compared
 * field by field, keep the order of their terms (the order is that of an ordered group): when every
 * entry of one table is at least as late as the same shard's entry in another and it has every
 * shard of the other, its progress is at least as high, and higher unless the entries are the same.
 * Along the states of one fold no entry goes back ({@link TableShard}), so a fold that has seen
 * more events never has a lower progress, and one whose entries differ from a fold it has seen all
 * the events of has a higher one. A function of the entries, so of the set of events: a replay
 * writes the same progress. Sums are exact (a field of one entry fits 64 bits, so a sum over fewer
 * than 2<sup>63</sup> entries fits 128).
 */
public final class TableProgress implements Comparable<TableProgress> {
  /** The number of fields. */
  public static final int SIZE = 12;

  /** The fields an entry adds with its sign turned: the oldest pending time and generation. */
  private static final boolean[] SUBTRACTED = {
    false, false, false, false, false, false, false, false, false, false, true, true
  };

  private final BigInteger[] sums;

  private TableProgress(BigInteger[] sums) {
    this.sums = sums;
  }

  /** The progress of {@code entries}, the table entries of one target's shards. */
  public static TableProgress of(Iterable<TableShard> entries) {
    Sum sum = new Sum();
    for (TableShard e : entries) {
      sum.add(e);
    }
    return sum.progress();
  }

  /**
   * The progress of these {@value #SIZE} sums, as {@link #sums()} gives them.
   *
   * @throws IllegalArgumentException when there are not {@value #SIZE} of them
   */
  public static TableProgress of(List<BigInteger> sums) {
    if (sums.size() != SIZE) {
      throw new IllegalArgumentException(
          "a table progress has " + SIZE + " fields, not " + sums.size());
    }
    return new TableProgress(sums.toArray(new BigInteger[0]));
  }

  /** The sums, in the order of the fields. */
  public List<BigInteger> sums() {
    return List.of(sums);
  }

  @Override
  public int compareTo(TableProgress o) {
    for (int i = 0; i < SIZE; i++) {
      int c = sums[i].compareTo(o.sums[i]);
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TableProgress p && Arrays.equals(sums, p.sums);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(sums);
  }

  @Override
  public String toString() {
    return Arrays.toString(sums);
  }

  /** The fields of one entry, before the signs of {@link #SUBTRACTED}. */
  private static long field(TableShard e, int i) {
    Mark m = e.merged();
    return switch (i) {
      case 0 -> 1;
      case 1 -> m == null ? 0 : 1;
      case 2 -> m == null ? 0 : m.value();
      case 3 -> m == null ? 0 : m.epoch();
      case 4 -> e.sealed().value();
      case 5 -> e.sealed().epoch();
      case 6 -> e.sealedBytes();
      case 7 -> e.kept().count();
      case 8 -> e.kept().lowest();
      case 9 -> e.hasOldest() ? 1 : 0;
      case 10 -> e.oldestMs();
      case 11 -> e.oldestGeneration();
      default -> throw new IllegalArgumentException("field " + i);
    };
  }

  /**
   * The progress of entries added and taken back one at a time, in 128-bit sums (no entry is ever
   * lost to a saturation). Not thread-safe.
   */
  public static final class Sum {
    private final long[] hi = new long[SIZE];
    private final long[] lo = new long[SIZE];

    /** Adds an entry. */
    public Sum add(TableShard e) {
      for (int i = 0; i < SIZE; i++) {
        step(i, field(e, i), !SUBTRACTED[i]);
      }
      return this;
    }

    /** Takes back an entry added before. */
    public Sum remove(TableShard e) {
      for (int i = 0; i < SIZE; i++) {
        step(i, field(e, i), SUBTRACTED[i]);
      }
      return this;
    }

    /** Adds or subtracts {@code x}, sign-extended to 128 bits, to field {@code i}. */
    private void step(int i, long x, boolean add) {
      long xhi = x >> 63;
      long l = lo[i];
      if (add) {
        long r = l + x;
        hi[i] += xhi + (Long.compareUnsigned(r, l) < 0 ? 1 : 0);
        lo[i] = r;
      } else {
        hi[i] -= xhi + (Long.compareUnsigned(l, x) < 0 ? 1 : 0);
        lo[i] = l - x;
      }
    }

    /** The progress of the entries added and not taken back. */
    public TableProgress progress() {
      BigInteger[] out = new BigInteger[SIZE];
      for (int i = 0; i < SIZE; i++) {
        byte[] b = new byte[16];
        for (int k = 0; k < 8; k++) {
          b[k] = (byte) (hi[i] >>> (56 - 8 * k));
          b[8 + k] = (byte) (lo[i] >>> (56 - 8 * k));
        }
        out[i] = new BigInteger(b);
      }
      return new TableProgress(out);
    }
  }
}
