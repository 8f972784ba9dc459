package io.demandfold.mirror;

/** How a read-join-CAS of one key ended; {@link #label()} is the metric label. */
public enum MirrorResult {
  /** The joined record was written. */
  WRITTEN("written", true),
  /** The join changed nothing: nothing written, no revision moved. */
  UNCHANGED("unchanged", true),
  /** The stored record has an unknown schema version: never overwritten. */
  REFUSED_NEWER_SCHEMA("refused_newer_schema", true),
  /** The stored value is JSON this reader cannot join: never overwritten. */
  REFUSED_UNREADABLE("refused_unreadable", true),
  /**
   * Even the compact table record exceeds the etcd request limit: written with its derived fields
   * only, without per-shard entries.
   */
  TOO_LARGE("too_large", true),
  /** etcd failed, timed out, or every CAS lost its race: try again later. */
  FAILED("failed", false);

  private final String label;
  private final boolean done;

  MirrorResult(String label, boolean done) {
    this.label = label;
    this.done = done;
  }

  public String label() {
    return label;
  }

  /** Whether the key is settled (nothing to retry). */
  public boolean done() {
    return done;
  }
}
