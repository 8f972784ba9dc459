package io.demandfold.view;

import io.demandfold.core.DemandClasses;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardView;
import io.demandfold.core.TableView;
import io.demandfold.view.ViewRecords.Kept;
import io.demandfold.view.ViewRecords.Refusal;
import io.demandfold.view.ViewRecords.ShardValue;
import io.demandfold.view.ViewRecords.TableValue;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;

/**
 * What the view holds: the table view of every readable table record, the shard records of the held
 * targets, the refused keys, and the revision it is current as of. One thread writes ({@link
 * #apply}, {@link #replace}, {@link #confirm}); any thread reads, under a read lock, so that a read
 * sees the state between two revisions, never in the middle of one.
 */
final class ViewState {
  /** A table as held: its view and the mod revision of its record. */
  record Entry(TableView view, long revision) {}

  /** Everything held, swapped whole by a resync. */
  private static final class Held {
    final Map<String, Entry> tables = new HashMap<>();

    /** Targets whose table record is refused, and why. */
    final Map<String, String> refusedTables = new HashMap<>();

    /** Every refused key. */
    final Map<String, Refusal> refused = new TreeMap<>();

    final Map<String, TreeMap<String, ShardDemand>> shards = new HashMap<>();

    Held(Set<String> heldTargets) {
      for (String t : heldTargets) {
        shards.put(t, new TreeMap<>(Keys.UTF8_ORDER));
      }
    }
  }

  private final ViewRecords records;
  private final Set<String> heldTargets;
  private final DemandClasses classes;
  private final LongSupplier clockMs;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private Held held;
  private long applied;
  private long revision;

  ViewState(
      ViewRecords records, Set<String> heldTargets, DemandClasses classes, LongSupplier clock) {
    this.records = records;
    this.heldTargets = Set.copyOf(heldTargets);
    this.classes = classes;
    this.clockMs = clock;
    this.held = new Held(this.heldTargets);
  }

  /**
   * Applies the events of one watch response, in order. The keys of one etcd transaction share its
   * revision, so every event of a revision above the last one applied is applied, however many
   * share it; events at or below it (a response repeating revisions: a watch restarted over them)
   * are skipped, so that no revision is applied twice. A revision counts as applied once the
   * response that carries it is: etcd sends all the events of a revision in one response (it splits
   * one only into fragments, which the view's watch does not ask for).
   *
   * @return one change per event on a table record, in order
   */
  List<TableChange> apply(List<ViewEvent> events) {
    List<TableChange> changes = new ArrayList<>();
    long now = clockMs.getAsLong();
    lock.writeLock().lock();
    try {
      long last = applied;
      for (ViewEvent e : events) {
        if (e.revision() <= applied) {
          continue;
        }
        TableChange c = put(held, e, now);
        if (c != null) {
          changes.add(c);
        }
        last = Math.max(last, e.revision());
      }
      applied = last;
      revision = Math.max(revision, applied);
    } finally {
      lock.writeLock().unlock();
    }
    return changes;
  }

  /** etcd said the watch has sent everything through {@code rev}: the view is current as of it. */
  void confirm(long rev) {
    lock.writeLock().lock();
    try {
      revision = Math.max(revision, rev);
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * Replaces everything with a snapshot at {@code rev} ({@code kvs}: every key read).
   *
   * @return the change of every target whose record differs, at {@code rev}
   */
  List<TableChange> replace(long rev, List<ViewEvent> kvs) {
    long now = clockMs.getAsLong();
    Held next = new Held(heldTargets);
    for (ViewEvent e : kvs) {
      put(next, e, now);
    }
    lock.writeLock().lock();
    try {
      List<TableChange> changes = diff(held, next, rev, now);
      held = next;
      applied = rev;
      revision = rev;
      return changes;
    } finally {
      lock.writeLock().unlock();
    }
  }

  private List<TableChange> diff(Held a, Held b, long rev, long now) {
    Set<String> targets = new HashSet<>(a.tables.keySet());
    targets.addAll(b.tables.keySet());
    targets.addAll(a.refusedTables.keySet());
    targets.addAll(b.refusedTables.keySet());
    List<String> sorted = new ArrayList<>(targets);
    sorted.sort(Keys.UTF8_ORDER);
    List<TableChange> changes = new ArrayList<>();
    for (String t : sorted) {
      Entry oldE = a.tables.get(t);
      Entry newE = b.tables.get(t);
      String newR = b.refusedTables.get(t);
      if (Objects.equals(oldE, newE) && Objects.equals(a.refusedTables.get(t), newR)) {
        continue;
      }
      changes.add(
          new TableChange(
              t, demand(t, oldE, now), demand(t, newE, now), rev, newE == null ? newR : null));
    }
    return changes;
  }

  /** Puts one key's event into {@code h}; the table change it makes, or {@code null}. */
  private TableChange put(Held h, ViewEvent e, long now) {
    Object kind = records.classify(e.key());
    if (kind instanceof Refusal r) {
      if (e.deleted()) {
        h.refused.remove(e.key());
      } else {
        h.refused.put(e.key(), r);
      }
      return null;
    }
    if (!(kind instanceof Kept k)) {
      return null;
    }
    if (k.shard() != null) {
      putShard(h, k, e);
      return null;
    }
    String target = k.target();
    Entry old = h.tables.get(target);
    if (e.deleted()) {
      h.tables.remove(target);
      boolean wasRefused = h.refusedTables.remove(target) != null;
      h.refused.remove(e.key());
      return old != null || wasRefused
          ? new TableChange(target, demand(target, old, now), null, e.revision(), null)
          : null;
    }
    TableValue v = ViewRecords.table(e.value());
    if (v.refusal() != null) {
      h.tables.remove(target);
      h.refusedTables.put(target, v.refusal().reason());
      h.refused.put(e.key(), v.refusal());
      return new TableChange(
          target, demand(target, old, now), null, e.revision(), v.refusal().reason());
    }
    Entry entry = new Entry(v.view(), e.revision());
    h.tables.put(target, entry);
    h.refusedTables.remove(target);
    h.refused.remove(e.key());
    return new TableChange(
        target, demand(target, old, now), demand(target, entry, now), e.revision(), null);
  }

  private static void putShard(Held h, Kept k, ViewEvent e) {
    TreeMap<String, ShardDemand> shards = h.shards.get(k.target());
    if (e.deleted()) {
      shards.remove(k.shard());
      h.refused.remove(e.key());
      return;
    }
    ShardValue v = ViewRecords.shard(k.shard(), e.value());
    if (v.refusal() != null) {
      h.refused.put(e.key(), v.refusal());
      shards.put(
          k.shard(),
          new ShardDemand(k.target(), k.shard(), e.revision(), null, null, v.refusal().reason()));
    } else {
      h.refused.remove(e.key());
      shards.put(
          k.shard(),
          new ShardDemand(
              k.target(), k.shard(), e.revision(), v.record(), ShardView.of(v.record()), null));
    }
  }

  private TableDemand demand(String target, Entry e, long now) {
    return e == null
        ? null
        : new TableDemand(target, e.view(), e.revision(), classes.classify(e.view(), now));
  }

  /** The revision the view is current as of. */
  long revision() {
    lock.readLock().lock();
    try {
      return revision;
    } finally {
      lock.readLock().unlock();
    }
  }

  /** The last revision applied from a snapshot or an event: a watch resumes after it. */
  long applied() {
    lock.readLock().lock();
    try {
      return applied;
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Every readable table, by target, classed now. */
  Map<String, TableDemand> tables() {
    long now = clockMs.getAsLong();
    lock.readLock().lock();
    try {
      Map<String, TableDemand> out = new HashMap<>(held.tables.size() * 2);
      held.tables.forEach((t, e) -> out.put(t, demand(t, e, now)));
      return Collections.unmodifiableMap(out);
    } finally {
      lock.readLock().unlock();
    }
  }

  /** One readable table, or {@code null}. */
  TableDemand table(String target) {
    long now = clockMs.getAsLong();
    lock.readLock().lock();
    try {
      return demand(target, held.tables.get(target), now);
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * The first {@code n} readable tables with pending generations by {@code order}, classed now: a
   * heap of the {@code n} best, the worst on top, so O(tables log n), not a full sort.
   */
  List<TableDemand> top(int n, Comparator<TableDemand> order) {
    long now = clockMs.getAsLong();
    PriorityQueue<TableDemand> heap = new PriorityQueue<>(Math.max(1, n + 1), order.reversed());
    lock.readLock().lock();
    try {
      held.tables.forEach(
          (t, e) -> {
            if (e.view().pendingGenerations() > 0) {
              heap.add(demand(t, e, now));
              if (heap.size() > n) {
                heap.poll();
              }
            }
          });
    } finally {
      lock.readLock().unlock();
    }
    List<TableDemand> top = new ArrayList<>(heap);
    top.sort(order);
    return List.copyOf(top);
  }

  /** Refused keys and why, in key order. */
  Map<String, String> refused() {
    lock.readLock().lock();
    try {
      Map<String, String> out = new LinkedHashMap<>();
      held.refused.forEach((k, r) -> out.put(k, r.reason()));
      return Collections.unmodifiableMap(out);
    } finally {
      lock.readLock().unlock();
    }
  }

  /** How many refused keys are of a newer schema ({@code true}) or unreadable ({@code false}). */
  long refusedCount(boolean newerSchema) {
    lock.readLock().lock();
    try {
      return held.refused.values().stream().filter(r -> r.newerSchema() == newerSchema).count();
    } finally {
      lock.readLock().unlock();
    }
  }

  int tableCount() {
    lock.readLock().lock();
    try {
      return held.tables.size();
    } finally {
      lock.readLock().unlock();
    }
  }

  /** The shard records of a held target in shard order, or {@code null} for another target. */
  List<ShardDemand> shards(String target) {
    lock.readLock().lock();
    try {
      TreeMap<String, ShardDemand> s = held.shards.get(target);
      return s == null ? null : List.copyOf(s.values());
    } finally {
      lock.readLock().unlock();
    }
  }
}
