package io.demandfold.dev;

import io.demandfold.cli.TextTable;
import io.demandfold.config.DemandfoldConfig;
import io.demandfold.core.Keys;
import io.demandfold.core.TableRecord;
import io.demandfold.core.TableView;
import io.demandfold.core.codec.TableJson;
import io.demandfold.ops.EtcdSnapshot;
import io.etcd.jetcd.Client;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** The live console summary of {@code demandfold local}: the table records etcd holds now. */
final class LocalReport implements AutoCloseable {
  private final DemandfoldConfig config;
  private final PrintWriter out;
  private final Client etcd;

  LocalReport(DemandfoldConfig config, PrintWriter out) {
    this.config = config;
    this.out = out;
    this.etcd = config.etcd().connect();
  }

  void print(long published) {
    String from = config.layout().tableRecordsPrefix();
    List<Object[]> rows = new ArrayList<>();
    try {
      EtcdSnapshot s = EtcdSnapshot.read(etcd.getKVClient(), from, 5000);
      for (Map.Entry<String, byte[]> e : s.values().entrySet()) {
        TableRecord r = TableJson.decode(e.getValue());
        rows.add(new Object[] {Keys.unhex(e.getKey().substring(from.length())), r.view()});
      }
    } catch (Exception e) {
      out.println("(etcd not readable right now: " + e.getMessage() + ")");
      out.flush();
      return;
    }
    rows.sort(Comparator.comparingLong(r -> -((TableView) r[1]).pendingGenerations()));
    long now = System.currentTimeMillis();
    TextTable t =
        new TextTable("TABLE", "SHARDS", "PENDING", "PENDING_MIB", "OLDEST_PENDING", "EXACT_AGE")
            .numeric(1, 2, 3);
    for (Object[] r : rows) {
      TableView v = (TableView) r[1];
      t.row(
          r[0],
          v.shards(),
          v.pendingGenerations(),
          v.pendingBytes() >> 20,
          v.oldestPendingMs().isPresent() ? age(now - v.oldestPendingMs().getAsLong()) : "-",
          v.oldestPendingExactMs().isPresent()
              ? age(now - v.oldestPendingExactMs().getAsLong())
              : "(upper bound only)");
    }
    out.printf("%n%,d events published; etcd %s holds:%n", published, config.layout().prefix());
    t.print(out);
    out.flush();
  }

  @Override
  public void close() {
    etcd.close();
  }

  private static String age(long ms) {
    return ms < 0 ? "0s" : ms / 1000 + "s";
  }
}
