package io.demandfold.view;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a view's listeners, on the view's thread. Whatever one throws, an {@link Error} too (an
 * assertion, a stack overflow), is logged and counted and the others still hear: a listener's bug
 * never ends the view's thread, which would leave the view frozen while its status says live.
 */
final class ViewListeners {
  private static final Logger log = LoggerFactory.getLogger(ViewListeners.class);

  private final List<DemandListener> listeners;
  private final ViewMeters meters;
  private final String what;

  ViewListeners(List<DemandListener> listeners, ViewMeters meters, String what) {
    this.listeners = listeners;
    this.meters = meters;
    this.what = what;
  }

  /** Tells every listener of every change, in order. */
  void changed(List<TableChange> changes) {
    for (TableChange c : changes) {
      for (DemandListener l : listeners) {
        try {
          l.changed(c);
        } catch (Throwable e) { // an Error too: a listener must not end the thread
          meters.listenerFailed();
          log.warn("view of {}: listener {} failed on a change of {}", what, l, c.target(), e);
        }
      }
    }
  }

  /** Tells every listener of a fresh snapshot at {@code revision}. */
  void resynced(long revision) {
    for (DemandListener l : listeners) {
      try {
        l.resynced(revision);
      } catch (Throwable e) { // as above
        meters.listenerFailed();
        log.warn("view of {}: listener {} failed on a resync", what, l, e);
      }
    }
  }
}
