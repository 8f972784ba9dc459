package io.demandfold.core.codec;

import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.ShardView;
import io.demandfold.core.TableView;
import java.util.OptionalLong;

/**
 * The JSON lines of the derived views, printed by {@code fold} and published (without a trailing
 * newline) to {@code demand.shard-records} and {@code demand.table-demand}:
 *
 * <pre>
 * {"kind":"shard","target":T,"shard":S,"key":"&lt;hex&gt;/&lt;shard&gt;","record":{...},
 *  "pending_generations":N,"oldest_pending_ms":X|null,"oldest_pending_bound":"exact"|"upper"|null}
 * {"kind":"table","target":T,"pending_generations":N,"pending_bytes":B,
 *  "oldest_pending_ms":X|null,"oldest_pending_exact_ms":Y|null,"shards":K}
 * </pre>
 */
public final class ViewJson {
  private ViewJson() {}

  /** The shard line of a folded record of {@code target}. */
  public static String shardLine(String target, ShardRecord r) {
    ShardView v = ShardView.of(r);
    StringBuilder sb = new StringBuilder(256 + 24 * r.sealedTimes().size());
    sb.append("{\"kind\":\"shard\"");
    JsonText.field(sb, "target");
    JsonText.string(sb, target);
    JsonText.field(sb, "shard");
    JsonText.string(sb, r.shard());
    JsonText.field(sb, "key");
    JsonText.string(sb, Keys.shardKey(target, r.shard()));
    JsonText.field(sb, "record");
    JsonCodec.appendRecord(sb, r);
    JsonText.field(sb, "pending_generations").append(v.pendingGenerations());
    optional(JsonText.field(sb, "oldest_pending_ms"), v.oldestPendingMs());
    JsonText.field(sb, "oldest_pending_bound");
    if (v.oldestPendingBound() == null) {
      sb.append("null");
    } else {
      sb.append('"').append(v.oldestPendingBound().wire()).append('"');
    }
    return sb.append('}').toString();
  }

  /** The table line of {@code target}. */
  public static String tableLine(String target, TableView v) {
    StringBuilder sb = new StringBuilder(200);
    sb.append("{\"kind\":\"table\"");
    JsonText.field(sb, "target");
    JsonText.string(sb, target);
    JsonText.field(sb, "pending_generations").append(v.pendingGenerations());
    JsonText.field(sb, "pending_bytes").append(v.pendingBytes());
    optional(JsonText.field(sb, "oldest_pending_ms"), v.oldestPendingMs());
    optional(JsonText.field(sb, "oldest_pending_exact_ms"), v.oldestPendingExactMs());
    JsonText.field(sb, "shards").append(v.shards());
    return sb.append('}').toString();
  }

  private static void optional(StringBuilder sb, OptionalLong v) {
    if (v.isPresent()) {
      sb.append(v.getAsLong());
    } else {
      sb.append("null");
    }
  }
}
