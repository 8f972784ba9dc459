package io.demandfold.bench;

import io.demandfold.core.InvalidEventException;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.JsonCodec;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.watch.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;

/**
 * A watch listener over shard records: each record etcd wrote under {@code prefix} whose key (after
 * the prefix) is {@code wanted}, decoded, with the moment the watch delivered it. Deletes and
 * values that are not a record the bench reads are passed over.
 */
final class ShardPuts {
  /** A shard record written into etcd. */
  @FunctionalInterface
  interface Heard {
    void heard(String key, ShardRecord record, long nanos);
  }

  private ShardPuts() {}

  static Watch.Listener listener(String prefix, Predicate<String> wanted, Heard heard) {
    return Watch.listener(
        response -> {
          long now = System.nanoTime();
          for (WatchEvent e : response.getEvents()) {
            if (e.getEventType() != WatchEvent.EventType.PUT) {
              continue;
            }
            String key =
                e.getKeyValue()
                    .getKey()
                    .toString(StandardCharsets.UTF_8)
                    .substring(prefix.length());
            if (!wanted.test(key)) {
              continue;
            }
            ShardRecord record;
            try {
              record = JsonCodec.decodeRecord(e.getKeyValue().getValue().getBytes());
            } catch (InvalidEventException x) {
              continue; // not a record this bench reads: no event of it is seen
            }
            heard.heard(key, record, now);
          }
        });
  }
}
