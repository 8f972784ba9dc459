package io.demandfold.mirror;

import io.demandfold.core.DerivedTable;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.TableProgress;
import io.demandfold.core.TableRecord;
import io.demandfold.core.codec.TableJson;
import java.util.Arrays;

/**
 * Decides what the mirror writes to a table key: the table record joined shard by shard into what
 * is stored, so that other writers' shards stay, in the largest form that fits one request ({@link
 * TableJson}: full, compact, or its derived fields alone). A stored record of an unknown version or
 * JSON this reader cannot read is never overwritten (other writers' shards are in it); a value that
 * is not JSON is replaced. A derived-only record has no entries to join: it carries the {@link
 * TableProgress} of its fold instead, and no record of lower progress is written over it, nor a
 * derived-only record over one of higher progress, so that a stale writer never lowers it either.
 * Needs no etcd: a function of the stored bytes and the record (besides the warnings it logs).
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
    TableProgress storedProgress = null;
    if (current != null) {
      try {
        TableRecord stored = stored(current);
        if (storedDerivedOnly(current)) {
          storedProgress = TableJson.progress(current.value());
        }
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
    boolean derivedOnly = TableJson.isDerivedOnly(bytes);
    if (storedProgress != null
        && stale(
            TableProgress.of(joined.shards().values()),
            derivedOnly,
            bytes,
            storedProgress,
            current)) {
      return Decision.unchanged(null);
    }
    if (derivedOnly) {
      warnings.derivedOnly(etcdKey, joined.shards().size());
      return Decision.writeDerivedOnly(bytes);
    }
    return Decision.write(bytes, joined, replaced);
  }

  /**
   * What to write to {@code etcdKey} for a target whose entries would not fit a request even
   * compact ({@code table.view().shards()} shards): {@code derivedOnly}, its {@link
   * TableJson#derivedOnly} form, which replaces what is stored unless that is of an unknown
   * version, JSON this reader cannot read, or a record of higher progress (see {@link #stale}).
   */
  Decision<TableRecord> decideDerivedOnly(
      String etcdKey, KnownValues.Value current, DerivedTable table, byte[] derivedOnly) {
    if (current != null) {
      if (Arrays.equals(derivedOnly, current.value())) {
        return Decision.unchanged(null);
      }
      try {
        TableRecord stored = stored(current);
        TableProgress theirs =
            storedDerivedOnly(current)
                ? TableJson.progress(current.value())
                : TableProgress.of(stored.shards().values());
        if (theirs != null && stale(table.progress(), true, derivedOnly, theirs, current)) {
          return Decision.unchanged(null);
        }
      } catch (InvalidEventException e) {
        Decision<TableRecord> refusal = Decision.refusal(etcdKey, current.value(), e, warnings);
        if (refusal != null) {
          return refusal;
        }
      }
    }
    warnings.derivedOnly(etcdKey, table.view().shards());
    return Decision.writeDerivedOnly(derivedOnly);
  }

  /** The stored table record: the one known decoded, else decoded from what etcd holds. */
  private static TableRecord stored(KnownValues.Value current) {
    return current.record() instanceof TableRecord r ? r : TableJson.decode(current.value());
  }

  /** Whether etcd holds a derived-only record (not known decoded): its progress is in the JSON. */
  private static boolean storedDerivedOnly(KnownValues.Value current) {
    return current.record() == null && TableJson.isDerivedOnly(current.value());
  }

  /**
   * Whether {@code ours} (of progress {@code progress}, derived-only or not) would lower what is
   * stored, a record of progress {@code theirs} (a derived-only record's {@code progress}, or that
   * of the entries a stored record carries): when its progress is lower, or, with equal progress,
   * when {@code ours} is derived-only and the stored record has entries or sorts after it byte by
   * byte. A fold that has seen every event another has seen has at least its progress, and more
   * unless their entries are the same ({@link TableProgress}); equal progress with other bytes is
   * two folds neither of which has seen all the other's events, settled the same way whichever
   * writes first.
   */
  private static boolean stale(
      TableProgress progress,
      boolean derivedOnly,
      byte[] ours,
      TableProgress theirs,
      KnownValues.Value current) {
    int c = progress.compareTo(theirs);
    if (c != 0 || !derivedOnly) {
      return c < 0;
    }
    return !TableJson.isDerivedOnly(current.value())
        || Arrays.compareUnsigned(ours, current.value()) < 0;
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
