package io.demandfold.ops;

import io.demandfold.core.Fold;
import io.demandfold.core.codec.EventDecoder;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The valid events of a replay spilled to disk in buckets by key range, so that folding the buckets
 * one after the other yields the targets in etcd's key order with only one bucket in memory.
 *
 * <p>A record's bucket is the next two hex characters of its target's hex (the part of {@code
 * <hex>/<shard>} before the slash), after the characters every record of its bucket shares; bucket
 * 0 holds the targets whose hex ends there, since {@code <hex>/} sorts before {@code <hex><more>}.
 * A bucket larger than {@link #DEFAULT_SPLIT_BYTES} and holding more than one target is split the
 * same way by the two characters after, so a bucket folded in memory holds that much spill or one
 * target. Each event costs its key and value as read plus 8 bytes on disk; the files live in a
 * temporary directory that {@link #close()} deletes. Not thread-safe.
 */
public final class Spill implements AutoCloseable {
  /** Bytes of spill above which a bucket of several targets is split before it is folded. */
  static final long DEFAULT_SPLIT_BYTES = 8L << 20;

  static final int FANOUT = 257;
  private static final int BUFFER = 8192;

  /** Takes the fold of one bucket; the buckets come in key order. */
  @FunctionalInterface
  public interface BucketConsumer {
    void accept(Fold bucket) throws Exception;
  }

  private final Path dir;
  private final long splitBytes;
  private final Buckets top;
  private long files;
  private long events;
  private long bytes;
  private long shards;
  private long targets;

  Spill(Path parent, long splitBytes) throws IOException {
    this.dir =
        parent == null
            ? Files.createTempDirectory("demandfold-spill-")
            : Files.createTempDirectory(parent, "demandfold-spill-");
    this.splitBytes = splitBytes;
    this.top = new Buckets(0);
  }

  /** A spill in a new directory under {@code java.io.tmpdir}. */
  public static Spill create() throws IOException {
    return new Spill(null, DEFAULT_SPLIT_BYTES);
  }

  /** Spills one valid event, with its record's key ({@code <hex>/<shard>}) and value as read. */
  public void add(byte[] key, byte[] value) throws IOException {
    top.add(key, value);
    events++;
    bytes += key.length + value.length + 8L;
  }

  /** Events spilled. */
  public long events() {
    return events;
  }

  /** Bytes spilled. */
  public long bytes() {
    return bytes;
  }

  /** Shards folded by {@link #forEachBucket} so far. */
  public long shards() {
    return shards;
  }

  /** Targets folded by {@link #forEachBucket} so far. */
  public long targets() {
    return targets;
  }

  /** Folds the buckets one by one, in key order, with {@link Fold}; each is read once. */
  public void forEachBucket(BucketConsumer consumer) throws Exception {
    top.close();
    top.visit(consumer);
  }

  private void fold(Path file, BucketConsumer consumer) throws Exception {
    Fold fold = new Fold();
    try (DataInputStream in = open(file)) {
      byte[][] record;
      while ((record = read(in)) != null) {
        fold.add(EventDecoder.decode(record[1]));
      }
    }
    Files.delete(file);
    shards += fold.shardCount();
    targets += fold.targets().size();
    consumer.accept(fold);
  }

  private void split(Path file, int shared, BucketConsumer consumer) throws Exception {
    Buckets sub = new Buckets(shared);
    try (DataInputStream in = open(file)) {
      byte[][] record;
      while ((record = read(in)) != null) {
        sub.add(record[0], record[1]);
      }
    }
    Files.delete(file);
    sub.close();
    sub.visit(consumer);
  }

  /** Bucket of {@code key} after the first {@code shared} hex characters of its target. */
  static int bucket(byte[] key, int shared) {
    int slash = 0;
    while (slash < key.length && key[slash] != '/') {
      slash++;
    }
    if (slash <= shared) {
      return 0;
    }
    int hi = Character.digit(key[shared], 16);
    int lo = shared + 1 < slash ? Character.digit(key[shared + 1], 16) : 0;
    return 1 + 16 * Math.max(hi, 0) + Math.max(lo, 0);
  }

  private static boolean sameTarget(byte[] a, byte[] b) {
    for (int i = 0; i < Math.min(a.length, b.length); i++) {
      if (a[i] != b[i]) {
        return false;
      }
      if (a[i] == '/') {
        return true;
      }
    }
    return false;
  }

  private static DataInputStream open(Path file) throws IOException {
    InputStream in = Files.newInputStream(file);
    return new DataInputStream(new BufferedInputStream(in, 1 << 16));
  }

  private static byte[][] read(DataInputStream in) throws IOException {
    int keyLength;
    try {
      keyLength = in.readInt();
    } catch (EOFException end) {
      return null;
    }
    byte[] key = in.readNBytes(keyLength);
    byte[] value = in.readNBytes(in.readInt());
    return new byte[][] {key, value};
  }

  /** Deletes the spill's directory and everything left in it. */
  @Override
  public void close() throws IOException {
    top.closeQuietly();
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** The files of one split: bucket i holds the records of {@link #bucket}(key, shared) == i. */
  private final class Buckets {
    private final int shared;
    private final Path[] paths = new Path[FANOUT];
    private final DataOutputStream[] outs = new DataOutputStream[FANOUT];
    private final byte[][] firstKey = new byte[FANOUT][];
    private final boolean[] mixed = new boolean[FANOUT];

    Buckets(int shared) {
      this.shared = shared;
    }

    void add(byte[] key, byte[] value) throws IOException {
      int i = bucket(key, shared);
      if (outs[i] == null) {
        paths[i] = dir.resolve(Long.toString(files++));
        outs[i] =
            new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(paths[i]), BUFFER));
        firstKey[i] = key;
      } else if (!mixed[i] && !sameTarget(firstKey[i], key)) {
        mixed[i] = true;
      }
      outs[i].writeInt(key.length);
      outs[i].write(key);
      outs[i].writeInt(value.length);
      outs[i].write(value);
    }

    void close() throws IOException {
      for (int i = 0; i < FANOUT; i++) {
        if (outs[i] != null) {
          outs[i].close();
          outs[i] = null;
        }
      }
    }

    void closeQuietly() {
      try {
        close();
      } catch (IOException ignored) {
        // the directory is deleted next
      }
    }

    void visit(BucketConsumer consumer) throws Exception {
      for (int i = 0; i < FANOUT; i++) {
        if (paths[i] == null) {
          continue;
        }
        if (i == 0 || !mixed[i] || Files.size(paths[i]) <= splitBytes) {
          fold(paths[i], consumer);
        } else {
          split(paths[i], shared + 2, consumer);
        }
      }
    }
  }
}
