package io.demandfold.http;

import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.TableView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/** A {@link DemandStore} in memory: shards held here, peers, settable vitals. */
final class FakeStore implements DemandStore {
  final Map<String, List<ShardRecord>> held = new ConcurrentHashMap<>();

  /** Table views held here, by hex; none unless a test puts one. */
  final Map<String, TableView> tableViews = new ConcurrentHashMap<>();

  volatile String self = "127.0.0.1:1";
  volatile List<String> peers = List.of();
  volatile Vitals vitals = new Vitals("RUNNING", 0, 0, 0, 0, 0, 0);
  volatile boolean unavailable;
  final java.util.concurrent.atomic.AtomicInteger tablesRead =
      new java.util.concurrent.atomic.AtomicInteger();

  FakeStore hold(String target, ShardRecord... shards) {
    TreeMap<String, ShardRecord> byShard = new TreeMap<>(Keys.UTF8_ORDER);
    for (ShardRecord r : shards) {
      byShard.put(r.shard(), r);
    }
    held.put(Keys.hex(target), new ArrayList<>(byShard.values()));
    return this;
  }

  @Override
  public String self() {
    return self;
  }

  @Override
  public List<ShardRecord> shards(String hex, String after, int limit) {
    check();
    return held.getOrDefault(hex, List.of()).stream()
        .filter(r -> after == null || Keys.UTF8_ORDER.compare(r.shard(), after) > 0)
        .limit(limit)
        .toList();
  }

  @Override
  public TableView table(String hex) {
    check();
    return tableViews.get(hex);
  }

  @Override
  public List<TableEntry> tables() {
    check();
    tablesRead.incrementAndGet();
    List<TableEntry> out = new ArrayList<>();
    held.forEach((hex, shards) -> out.add(new TableEntry(hex, TableView.of(shards))));
    return out;
  }

  @Override
  public List<String> peers() {
    return peers;
  }

  @Override
  public Vitals vitals() {
    return vitals;
  }

  private void check() {
    if (unavailable) {
      throw new StoreUnavailableException("rebalancing", null);
    }
  }
}
