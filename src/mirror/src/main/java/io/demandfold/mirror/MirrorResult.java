package io.demandfold.mirror;

import io.demandfold.core.EnumNames;

/** How a read-join-CAS of one key ended; {@link #label()} is the metric label. */
public enum MirrorResult {
  /** The joined record was written. */
  WRITTEN(true),
  /** The join changed nothing: nothing written, no revision moved. */
  UNCHANGED(true),
  /** The stored record has an unknown schema version: never overwritten. */
  REFUSED_NEWER_SCHEMA(true),
  /** The stored value is JSON this reader cannot join: never overwritten. */
  REFUSED_UNREADABLE(true),
  /**
   * Even the compact table record exceeds the etcd request limit: written with its derived fields
   * only, without per-shard entries.
   */
  TOO_LARGE(true),
  /** etcd failed, timed out, or every CAS lost its race: try again later. */
  FAILED(false);

  private final String label = EnumNames.of(this);
  private final boolean done;

  MirrorResult(boolean done) {
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
