package io.demandfold.bench;

import io.demandfold.core.InvalidEventException;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.JsonCodec;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The etcd writes of shard records, from a watch on the shard prefix, each with the moment the
 * watch delivered it. Nothing is kept before {@link #record()}; {@link #drainTo} hands what came
 * since to a {@link ResumeClock}.
 */
final class ShardWrites implements AutoCloseable {
  /** One write seen by the watch. */
  private record Put(String key, long modRevision, long nanos, byte[] value) {}

  private final ConcurrentLinkedQueue<Put> puts = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean recording = new AtomicBoolean();
  private final Watch.Watcher watcher;

  /** Watches every key under {@code prefix} (the shard records prefix of a layout). */
  ShardWrites(Client etcd, String prefix) {
    Watch.Listener listener =
        Watch.listener(
            response -> {
              long now = System.nanoTime();
              if (!recording.get()) {
                return;
              }
              for (WatchEvent e : response.getEvents()) {
                if (e.getEventType() == WatchEvent.EventType.PUT) {
                  puts.add(
                      new Put(
                          e.getKeyValue()
                              .getKey()
                              .toString(StandardCharsets.UTF_8)
                              .substring(prefix.length()),
                          e.getKeyValue().getModRevision(),
                          now,
                          e.getKeyValue().getValue().getBytes()));
                }
              }
            });
    this.watcher =
        etcd.getWatchClient()
            .watch(
                ByteSequence.from(prefix, StandardCharsets.UTF_8),
                WatchOption.builder().isPrefix(true).build(),
                listener);
  }

  /** From now on, keeps every write the watch delivers. */
  void record() {
    recording.set(true);
  }

  /** Hands every write kept so far to {@code clock}, in the order the watch delivered them. */
  void drainTo(ResumeClock clock) {
    for (Put p; (p = puts.poll()) != null; ) {
      ShardRecord r = decode(p.value());
      if (r != null) {
        clock.onPut(p.key(), p.modRevision(), r, p.nanos());
      }
    }
  }

  /** A shard record as the mirror writes it (JSON); null when it is not one. */
  static ShardRecord decode(byte[] value) {
    try {
      return JsonCodec.decodeRecord(value);
    } catch (InvalidEventException e) {
      return null;
    }
  }

  @Override
  public void close() {
    watcher.close();
  }
}
