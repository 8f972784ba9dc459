package io.demandfold.client;

/**
 * Hears of the changes a {@link DemandView} applies. Every method is called on the view's one
 * thread, in revision order; a slow listener delays the ones after it and the view's own updates
 * (the view's reads stay current as of what it applied), and an exception it throws is logged and
 * does not stop the view.
 */
@FunctionalInterface
public interface DemandListener {
  /** A target's table record changed (put, deleted, or refused). */
  void changed(TableChange change);

  /**
   * The view could not resume its watch (etcd compacted the revision it needed, or etcd's history
   * is not the one it watched) and loaded a fresh snapshot at {@code revision}: the changes that
   * came just before, all at {@code revision}, took each target from what the listener last heard
   * to the snapshot; intermediate states were skipped.
   */
  default void resynced(long revision) {}
}
