package io.demandfold.core;

/** The limits of docs/model.md section 2 and the sealed_times cap of its section 5. */
public final class Limits {
  /** Largest shard id, in UTF-8 bytes. */
  public static final int MAX_SHARD_BYTES = 256;

  /** Largest target name, in UTF-8 bytes. */
  public static final int MAX_TARGET_BYTES = 1024;

  /** Most entries an event's sealed_times may carry. */
  public static final int MAX_EVENT_SEALED_TIMES = 4096;

  /** Most entries a folded record keeps: the 64 highest generations (docs/model.md section 5). */
  public static final int SEALED_TIMES_CAP = 64;

  private Limits() {}
}
