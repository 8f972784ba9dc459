package io.demandfold.mirror;

/**
 * What an etcd key of the mirror holds: a shard record ({@code
 * <prefix>/demand-events/<hex>/<shard>}) or a table record ({@code <prefix>/demand/<hex>}). {@link
 * #label()} is the {@code kind} label of the metrics.
 */
public enum RecordKind {
  SHARD("shard"),
  TABLE("table");

  private final String label;

  RecordKind(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
