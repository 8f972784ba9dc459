package io.demandfold.mirror;

import io.demandfold.core.ShardRecord;
import io.etcd.jetcd.KeyValue;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The last value and mod_revision the mirror saw of recently mirrored keys, bounded by an estimate
 * of the bytes they hold (a table value can be a thousand times a shard value), least recently used
 * evicted first. Thread-safe.
 */
final class KnownValues {
  /**
   * A value as etcd held it at {@code modRevision}.
   *
   * @param value the bytes etcd holds, or {@code null} once a shard record is decoded (the record
   *     is all a shard join needs)
   * @param record the value decoded, when known ({@code null}: decode {@code value})
   * @param ours whether this mirror wrote {@code value} itself, so it is the canonical encoding of
   *     {@code record}
   */
  record Value(long modRevision, byte[] value, Object record, boolean ours) {
    /** A value read outside the mirror, {@code null} when absent. */
    static Value read(byte[] value) {
      return value == null ? null : new Value(0, value, null, false);
    }

    /** This value with its decoded record; a shard record's bytes are then dropped. */
    Value withRecord(Object decoded) {
      return new Value(modRevision, decoded instanceof ShardRecord ? null : value, decoded, ours);
    }

    /** About how many bytes of heap this value holds. */
    long bytes() {
      return 64 + (value == null ? 0 : value.length) + (record == null ? 0 : HeapBytes.of(record));
    }
  }

  private final long capacityBytes;
  private final Map<String, Value> values = new LinkedHashMap<>(16, 0.75f, true);
  private long bytes;

  /**
   * @param capacityBytes most bytes of values (and their keys) remembered; 0 remembers nothing
   */
  KnownValues(long capacityBytes) {
    this.capacityBytes = capacityBytes;
  }

  synchronized Value get(String key) {
    return capacityBytes == 0 ? null : values.get(key);
  }

  synchronized void put(String key, Value v) {
    if (capacityBytes == 0) {
      return;
    }
    Value old = values.put(key, v);
    bytes += v.bytes() - (old == null ? -keyBytes(key) : old.bytes());
    for (Iterator<Map.Entry<String, Value>> it = values.entrySet().iterator();
        bytes > capacityBytes && it.hasNext(); ) {
      Map.Entry<String, Value> eldest = it.next();
      bytes -= eldest.getValue().bytes() + keyBytes(eldest.getKey());
      it.remove();
    }
  }

  synchronized void forget(String key) {
    Value old = values.remove(key);
    if (old != null) {
      bytes -= old.bytes() + keyBytes(key);
    }
  }

  /** Forgets every key: etcd lost writes ({@link EtcdEpoch}), what was known may be gone. */
  synchronized void clear() {
    values.clear();
    bytes = 0;
  }

  /** Remembers what a read of {@code key} returned: {@code null}, and forgotten, when absent. */
  Value observed(String key, KeyValue read) {
    if (read == null) {
      forget(key);
      return null;
    }
    Value v = new Value(read.getModRevision(), read.getValue().getBytes(), null, false);
    put(key, v);
    return v;
  }

  /** Remembers that this mirror wrote what {@code written} decided, at {@code revision}. */
  void written(String key, long revision, Decision<?> written) {
    Value v = new Value(revision, written.value(), written.record(), true);
    put(key, written.record() == null ? v : v.withRecord(written.record()));
  }

  /** The bytes the values remembered take, by the same estimate. */
  synchronized long bytes() {
    return bytes;
  }

  synchronized int size() {
    return values.size();
  }

  private static long keyBytes(String key) {
    return 48 + 2L * key.length();
  }
}
