package io.demandfold.core.codec;

import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.ShardView;
import io.demandfold.core.TableView;
import java.nio.charset.StandardCharsets;
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
    return new String(shardLine(target, r, JsonCodec.encodeRecord(r)), StandardCharsets.UTF_8);
  }

  /**
   * The shard line of a folded record of {@code target} as UTF-8, around {@code recordJson}, the
   * record's canonical JSON ({@link JsonCodec#encodeRecord}) made once for etcd and this line.
   */
  public static byte[] shardLine(String target, ShardRecord r, byte[] recordJson) {
    ShardView v = ShardView.of(r);
    StringBuilder head = new StringBuilder(128);
    head.append("{\"kind\":\"shard\"");
    JsonText.field(head, "target");
    JsonText.string(head, target);
    JsonText.field(head, "shard");
    JsonText.string(head, r.shard());
    JsonText.field(head, "key");
    JsonText.string(head, Keys.shardKey(target, r.shard()));
    JsonText.field(head, "record");
    StringBuilder tail = new StringBuilder(96);
    JsonText.field(tail, "pending_generations").append(v.pendingGenerations());
    optional(JsonText.field(tail, "oldest_pending_ms"), v.oldestPendingMs());
    JsonText.field(tail, "oldest_pending_bound");
    if (v.oldestPendingBound() == null) {
      tail.append("null");
    } else {
      tail.append('"').append(v.oldestPendingBound().wire()).append('"');
    }
    tail.append('}');
    byte[] h = head.toString().getBytes(StandardCharsets.UTF_8);
    byte[] t = tail.toString().getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[h.length + recordJson.length + t.length];
    System.arraycopy(h, 0, out, 0, h.length);
    System.arraycopy(recordJson, 0, out, h.length, recordJson.length);
    System.arraycopy(t, 0, out, h.length + recordJson.length, t.length);
    return out;
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
