package io.demandfold.connect;

import io.etcd.jetcd.common.exception.CompactedException;

/** Classifies etcd failures that mean a revision can no longer (or not yet) be read. */
final class EtcdFailures {
  private EtcdFailures() {}

  /** Whether etcd compacted away the revision asked for. */
  static boolean isCompacted(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof CompactedException
          || (t.getMessage() != null && t.getMessage().contains("revision has been compacted"))) {
        return true;
      }
    }
    return false;
  }

  /** Whether the revision asked for is ahead of etcd (a cluster restored from an older backup). */
  static boolean isFutureRevision(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t.getMessage() != null && t.getMessage().contains("is a future revision")) {
        return true;
      }
    }
    return false;
  }
}
