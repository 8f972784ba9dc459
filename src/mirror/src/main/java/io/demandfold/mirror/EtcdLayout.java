package io.demandfold.mirror;

/**
 * Where demandfold keeps its records in etcd, under a prefix such as {@code /demandfold}:
 *
 * <ul>
 *   <li>{@code <prefix>/demand-events/<hex>/<shard>}: the canonical stored record of a shard;
 *   <li>{@code <prefix>/demand/<hex>}: the table record of a target (when tables are mirrored).
 * </ul>
 */
public final class EtcdLayout {
  private final String prefix;

  /**
   * @param prefix a non-empty path starting with {@code /}; a trailing {@code /} is dropped
   * @throws IllegalArgumentException naming {@code etcd.prefix} when the prefix is not such a path
   */
  public EtcdLayout(String prefix) {
    String p = prefix == null ? "" : prefix.trim();
    while (p.length() > 1 && p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    if (!p.startsWith("/") || p.length() < 2) {
      throw new IllegalArgumentException(
          "etcd.prefix must be a path such as /demandfold, got '" + prefix + "'");
    }
    this.prefix = p;
  }

  public String prefix() {
    return prefix;
  }

  /** The etcd key of a shard record: {@code <prefix>/demand-events/<hex>/<shard>}. */
  public String shardKey(String shardKey) {
    return shardRecordsPrefix() + shardKey;
  }

  /** The etcd key of a table record: {@code <prefix>/demand/<hex>}. */
  public String tableKey(String hex) {
    return tableRecordsPrefix() + hex;
  }

  /** {@code <prefix>/demand-events/}: every shard record lies below it. */
  public String shardRecordsPrefix() {
    return prefix + "/demand-events/";
  }

  /** {@code <prefix>/demand/}: every table record lies below it. */
  public String tableRecordsPrefix() {
    return prefix + "/demand/";
  }
}
