package io.demandfold.view;

/**
 * Hears of the changes a {@link DemandView} applies. Every method is called on the view's one
 * thread, in revision order; a slow listener delays the ones after it and the view's own updates
 * (the view's reads stay current as of what it applied; past {@link DemandView.Builder#queueBytes}
 * of waiting responses the view catches up with a fresh snapshot). Whatever it throws, an {@link
 * Error} too, is logged and counted ({@code demandfold_view_listener_errors_total}) and does not
 * stop the view.
 */
@FunctionalInterface
public interface DemandListener {
  /** A target's table record changed (put, deleted, or refused). */
  void changed(TableChange change);

  /**
   * The view could not go on with its watch (etcd compacted the revision it needed; more came than
   * the watch's client or the view's queue takes; etcd went back: restored from an older snapshot,
   * wiped, or another cluster) and loaded a fresh snapshot at {@code revision}: the changes that
   * came just before, all at {@code revision}, took each target from what the listener last heard
   * to the snapshot; intermediate states were skipped.
   */
  default void resynced(long revision) {}
}
