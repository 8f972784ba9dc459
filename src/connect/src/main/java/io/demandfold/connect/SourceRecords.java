package io.demandfold.connect;

import io.demandfold.connect.SourceOffset.Phase;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.InvalidEventException.Reason;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.mirror.EtcdLayout;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a stored shard record into the event that carries it: key {@code <hex>/<shard>} (the etcd
 * key below {@code <prefix>/demand-events/}), value the record plus its {@code target}, decoded
 * from the hex, as canonical JSON or Avro. Headers {@code demandfold.etcd.revision} (the key's mod
 * revision) and {@code demandfold.etcd.phase} ({@code snapshot} or {@code watch}) say where it came
 * from.
 *
 * <p>A key or value that is not a valid record (not {@code <hex>/<shard>}, unreadable, of an
 * unknown version, naming another shard) is skipped: logged with its key and revision (the first
 * {@value #MAX_LOGGED} keys at WARN, then at DEBUG) and counted by reason.
 */
final class SourceRecords {
  private static final Logger log = LoggerFactory.getLogger(SourceRecords.class);
  static final String REVISION_HEADER = "demandfold.etcd.revision";
  static final String PHASE_HEADER = "demandfold.etcd.phase";
  private static final int MAX_LOGGED = 1000;

  private final String keyPrefix;
  private final String topic;
  private final boolean avro;
  private final Map<String, String> partition;
  private final Map<Reason, LongAdder> skipped = new EnumMap<>(Reason.class);
  private final Set<String> logged = ConcurrentHashMap.newKeySet();

  SourceRecords(EtcdLayout layout, String topic, boolean avro, TaskMetrics metrics) {
    this.keyPrefix = layout.shardRecordsPrefix();
    this.topic = topic;
    this.avro = avro;
    this.partition = SourceOffset.partition(layout);
    for (Reason r : Reason.values()) {
      skipped.put(
          r,
          metrics.counter("skipped-total", "etcd records skipped, by reason", "reason", r.code()));
    }
  }

  /**
   * The event an etcd key holds, or {@code null} when it holds none (skipped, logged, counted).
   *
   * @param key the full etcd key
   */
  DemandEvent event(byte[] key, byte[] value, long modRevision) {
    String k = null;
    try {
      k = Keys.decode(key);
      if (!k.startsWith(keyPrefix)) {
        throw new InvalidEventException(Reason.INVALID_KEY, "not below " + keyPrefix);
      }
      String suffix = k.substring(keyPrefix.length());
      Keys.ShardKey parsed;
      try {
        parsed = Keys.parse(suffix);
      } catch (IllegalArgumentException e) {
        throw new InvalidEventException(Reason.INVALID_KEY, e.getMessage());
      }
      ShardRecord record = JsonCodec.decodeRecord(value);
      DemandEvent event = new DemandEvent(parsed.target(), record);
      Keys.requireMatch(suffix, event);
      return event;
    } catch (InvalidEventException e) {
      skipped.get(e.reason()).increment();
      String shown = k == null ? "(not UTF-8)" : Keys.abbreviate(k);
      if (logged.size() < MAX_LOGGED && logged.add(shown)) {
        log.warn(
            "skipping etcd key {} at revision {}: {}: {}",
            shown,
            modRevision,
            e.reason().code(),
            e.getMessage());
      } else {
        log.debug(
            "skipping etcd key {} at revision {}: {}: {}",
            shown,
            modRevision,
            e.reason().code(),
            e.getMessage());
      }
      return null;
    }
  }

  /** The source record of {@code event}, read at {@code modRevision}, at position {@code at}. */
  SourceRecord record(DemandEvent event, long modRevision, Phase phase, SourceOffset at) {
    byte[] value = avro ? AvroCodec.encodeEvent(event) : JsonCodec.encodeEvent(event);
    ConnectHeaders headers = new ConnectHeaders();
    headers.addLong(REVISION_HEADER, modRevision);
    headers.addString(PHASE_HEADER, phase.wire());
    return new SourceRecord(
        partition,
        at.toMap(),
        topic,
        null,
        Schema.BYTES_SCHEMA,
        event.key().getBytes(StandardCharsets.UTF_8),
        Schema.BYTES_SCHEMA,
        value,
        null,
        headers);
  }

  /** Records skipped for {@code reason} so far. */
  long skipped(Reason reason) {
    return skipped.get(reason).sum();
  }
}
