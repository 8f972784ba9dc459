package io.demandfold.mirror;

import io.demandfold.core.InvalidEventException;
import io.demandfold.core.TableRecord;
import io.demandfold.core.codec.TableJson;
import java.util.Arrays;

/**
 * Decides what the mirror writes to a table key: the table record joined shard by shard into what
 * is stored, so that other writers' shards stay, in the largest form that fits one request ({@link
 * TableJson}: full, compact, or its derived fields alone). A stored record of an unknown version or
 * JSON this reader cannot read is never overwritten (other writers' shards are in it); a value that
 * is not JSON is replaced. Needs no etcd: a function of the stored bytes and the record (besides
 * the warnings it logs).
 */
final class TableJoiner {
  private final RequestBudget budget;
  private final MirrorWarnings warnings;

  TableJoiner(RequestBudget budget, MirrorWarnings warnings) {
    this.budget = budget;
    this.warnings = warnings;
  }

  /** What to write to {@code etcdKey}, which holds {@code current} ({@code null}: absent). */
  Decision<TableRecord> decide(String etcdKey, KnownValues.Value current, TableRecord ours) {
    TableRecord joined = ours;
    boolean replaced = false;
    if (current != null) {
      try {
        TableRecord stored =
            current.record() instanceof TableRecord r ? r : TableJson.decode(current.value());
        joined = stored.join(ours);
        if (joined == stored && current.ours()) {
          return Decision.unchanged(stored);
        }
      } catch (InvalidEventException e) {
        // JSON may hold other writers' shards: never replace it by ours alone
        Decision<TableRecord> refusal = Decision.refusal(etcdKey, current.value(), e, warnings);
        if (refusal != null) {
          return refusal;
        }
        warnings.replacingTableValue(etcdKey, e);
        replaced = true;
      }
    }
    byte[] bytes = value(etcdKey, joined);
    if (current != null && Arrays.equals(bytes, current.value())) {
      return Decision.unchanged(joined);
    }
    if (TableJson.isDerivedOnly(bytes)) {
      warnings.derivedOnly(etcdKey, joined.shards().size());
      return Decision.writeDerivedOnly(bytes);
    }
    return Decision.write(bytes, joined, replaced);
  }

  /**
   * What to write to {@code etcdKey} for a target of {@code shards} shards whose entries would not
   * fit a request even compact: {@code derivedOnly} ({@link TableJson#derivedOnly}), replacing what
   * is stored unless it is of an unknown version or JSON this reader cannot read.
   */
  Decision<TableRecord> decideDerivedOnly(
      String etcdKey, KnownValues.Value current, byte[] derivedOnly, int shards) {
    if (current != null) {
      if (Arrays.equals(derivedOnly, current.value())) {
        return Decision.unchanged(null);
      }
      try {
        TableJson.decode(current.value());
      } catch (InvalidEventException e) {
        Decision<TableRecord> refusal = Decision.refusal(etcdKey, current.value(), e, warnings);
        if (refusal != null) {
          return refusal;
        }
      }
    }
    warnings.derivedOnly(etcdKey, shards);
    return Decision.writeDerivedOnly(derivedOnly);
  }

  /**
   * The value {@code r} is written as under {@code etcdKey}: compact when the full form would
   * exceed the request limit, its derived fields alone when even that would.
   */
  byte[] value(String etcdKey, TableRecord r) {
    return TableJson.encode(r, budget.valueBytes(etcdKey));
  }

  /** How many shards a table record may have and still fit a request compact. */
  int entriesThatMayFit() {
    return TableJson.entriesThatMayFit(budget.maxRequestBytes());
  }
}
