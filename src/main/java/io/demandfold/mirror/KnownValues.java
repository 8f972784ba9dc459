package io.demandfold.mirror;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The last value and mod_revision the mirror saw of recently mirrored keys, least recently used
 * evicted first. Thread-safe.
 */
final class KnownValues {
  /**
   * A value as etcd held it at {@code modRevision}.
   *
   * @param record the value decoded, when known ({@code null}: decode {@code value})
   * @param ours whether this mirror wrote {@code value} itself, so it is the canonical encoding of
   *     {@code record}
   */
  record Value(long modRevision, byte[] value, Object record, boolean ours) {
    /** A value read outside the mirror, {@code null} when absent. */
    static Value read(byte[] value) {
      return value == null ? null : new Value(0, value, null, false);
    }

    Value withRecord(Object decoded) {
      return new Value(modRevision, value, decoded, ours);
    }
  }

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
