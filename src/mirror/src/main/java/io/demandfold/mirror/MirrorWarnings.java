package io.demandfold.mirror;

import io.demandfold.core.Printable;
import io.demandfold.core.UnknownVersionException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The warnings the mirror logs about keys it does not write as asked. A refusal or a derived-only
 * table record is logged once per key, for the first {@value #MAX_KEYS_LOGGED} keys, since it
 * recurs each time the key is mirrored: a prefix full of other writers' records cannot flood the
 * log. A replaced value is logged each time: what replaces it is JSON, so it happens once. Logged
 * under {@link EtcdMirror}'s logger. Thread-safe.
 */
final class MirrorWarnings {
  private static final Logger log = LoggerFactory.getLogger(EtcdMirror.class);

  /** Keys warned about at most; later keys are counted in the metrics only. */
  static final int MAX_KEYS_LOGGED = 10_000;

  private final Set<String> logged = ConcurrentHashMap.newKeySet();

  /** {@code key} holds a record of a schema version this reader does not know. */
  void newerSchema(String key, UnknownVersionException e) {
    if (first(key)) {
      log.warn(
          "not overwriting {}: it holds a record this reader does not know ({})",
          Printable.escape(key),
          e.getMessage());
    }
  }

  /**
   * {@code key} holds JSON but not a record this reader can join (a field out of range, an unknown
   * source, a repeated key, another shard's record): another writer's, or a schema this reader does
   * not know.
   */
  void unreadable(String key, String why) {
    if (first(key)) {
      log.warn(
          "not overwriting {}: it holds JSON this reader cannot join ({})",
          Printable.escape(key),
          why);
    }
  }

  /** The table record of {@code key} is written with its derived fields only. */
  void derivedOnly(String key, int shards) {
    if (first(key)) {
      log.warn(
          "the table record of {} ({} shards) exceeds etcd.max.request.bytes even compact: it is"
              + " written with its derived fields only (derived_only), without per-shard entries",
          Printable.escape(key),
          shards);
    }
  }

  /** {@code key} holds a shard value that is not JSON, which the mirror replaces. */
  void replacingShardValue(String key, Exception e) {
    log.warn("replacing a value that is not JSON at {}: {}", Printable.escape(key), e.getMessage());
  }

  /** {@code key} holds a table value that is not JSON, which the mirror replaces. */
  void replacingTableValue(String key, Exception e) {
    log.warn(
        "replacing a table record that is not JSON at {}: {}",
        Printable.escape(key),
        e.getMessage());
  }

  private boolean first(String key) {
    return logged.size() < MAX_KEYS_LOGGED && logged.add(key);
  }
}
