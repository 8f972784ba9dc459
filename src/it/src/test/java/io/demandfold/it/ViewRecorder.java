package io.demandfold.it;

import io.demandfold.core.TableView;
import io.demandfold.core.codec.TableJson;
import io.demandfold.mirror.EtcdLayout;
import io.demandfold.ops.EtcdSnapshot;
import io.demandfold.view.DemandListener;
import io.demandfold.view.DemandView;
import io.demandfold.view.TableChange;
import io.demandfold.view.TableDemand;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A {@link DemandListener} that records what a {@link DemandView} told it, and the helpers the view
 * tests compare it with: what a fresh read of etcd holds, described the same way.
 */
final class ViewRecorder implements DemandListener {
  private final List<TableChange> changes = new ArrayList<>();
  private final List<Long> resyncs = new ArrayList<>();
  private final List<String> threads = new ArrayList<>();

  @Override
  public synchronized void changed(TableChange c) {
    changes.add(c);
    threads.add(Thread.currentThread().getName());
  }

  @Override
  public synchronized void resynced(long revision) {
    resyncs.add(revision);
  }

  synchronized List<TableChange> changes() {
    return List.copyOf(changes);
  }

  synchronized List<Long> resyncs() {
    return List.copyOf(resyncs);
  }

  synchronized List<String> threads() {
    return List.copyOf(threads);
  }

  /**
   * What the listener knows: {@code initial} (the view's tables when it started, described) with
   * every change heard applied in order.
   */
  synchronized Map<String, String> replayed(Map<String, String> initial) {
    Map<String, String> out = new TreeMap<>(initial);
    for (TableChange c : changes) {
      if (c.current() == null) {
        out.remove(c.target());
      } else {
        out.put(c.target(), describe(c.current().view(), c.current().revision()));
      }
    }
    return out;
  }

  /** The view's tables described: target to view and revision. */
  static Map<String, String> describe(Map<String, TableDemand> tables) {
    Map<String, String> out = new TreeMap<>();
    tables.forEach((t, d) -> out.put(t, describe(d.view(), d.revision())));
    return out;
  }

  /** The readable table records etcd holds now, described as {@link #describe(Map)} does. */
  static Map<String, String> fresh(KV kv, EtcdLayout layout) throws Exception {
    EtcdSnapshot s = EtcdSnapshot.read(kv, layout.tableRecordsPrefix(), 10_000);
    Map<String, String> out = new TreeMap<>();
    GetResponse revisions =
        kv.get(
                io.etcd.jetcd.ByteSequence.from(
                    layout.tableRecordsPrefix(), StandardCharsets.UTF_8),
                GetOption.builder()
                    .isPrefix(true)
                    .withKeysOnly(true)
                    .withRevision(s.revision())
                    .build())
            .get(10, TimeUnit.SECONDS);
    Map<String, Long> modRevisions = new LinkedHashMap<>();
    for (KeyValue k : revisions.getKvs()) {
      modRevisions.put(k.getKey().toString(StandardCharsets.UTF_8), k.getModRevision());
    }
    s.values()
        .forEach(
            (key, value) -> {
              String target =
                  io.demandfold.core.Keys.unhex(
                      key.substring(layout.tableRecordsPrefix().length()));
              try {
                out.put(target, describe(TableJson.decodeView(value), modRevisions.get(key)));
              } catch (RuntimeException e) {
                // refused: not a readable table
              }
            });
    return out;
  }

  static String describe(TableView v, long revision) {
    return v + "@" + revision;
  }
}
