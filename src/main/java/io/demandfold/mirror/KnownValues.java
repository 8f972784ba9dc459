package io.demandfold.mirror;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The last value and mod_revision the mirror saw of recently mirrored keys, least recently used
 * evicted first. Thread-safe.
 */
final class KnownValues {
  /** A value as etcd held it at {@code modRevision}. */
  record Value(long modRevision, byte[] value) {}

  private final int capacity;
  private final Map<String, Value> values;

  KnownValues(int capacity) {
    this.capacity = capacity;
    this.values =
        new LinkedHashMap<>(16, 0.75f, true) {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Value> eldest) {
            return size() > KnownValues.this.capacity;
          }
        };
  }

  synchronized Value get(String key) {
    return capacity == 0 ? null : values.get(key);
  }

  synchronized void put(String key, Value v) {
    if (capacity > 0) {
      values.put(key, v);
    }
  }

  synchronized void forget(String key) {
    values.remove(key);
  }
}
