package io.demandfold.connect;

import io.demandfold.core.Causes;
import io.etcd.jetcd.common.exception.CompactedException;

/** Classifies etcd failures that mean a revision can no longer (or not yet) be read. */
final class EtcdFailures {
  private EtcdFailures() {}

  /** Whether etcd compacted away the revision asked for. */
  static boolean isCompacted(Throwable e) {
    return Causes.any(e, t -> t instanceof CompactedException)
        || Causes.anyMessageContains(e, "revision has been compacted");
  }

  /** Whether the revision asked for is ahead of etcd (a cluster restored from an older backup). */
  static boolean isFutureRevision(Throwable e) {
    return Causes.anyMessageContains(e, "is a future revision");
  }
}
