package io.demandfold.view;

/**
 * Notices that etcd went back under the view: an answer from another cluster, or one at a revision
 * below a revision etcd had shown before (restored from an older snapshot, its data directory
 * wiped; etcd's revision never goes down otherwise). The rule is the mirror's ({@code
 * mirror.EtcdEpoch}): only a revision seen before a linearizable request was sent bounds its
 * answer. A watch is not linearizable, though: a member that lags behind the one that served an
 * earlier read answers below it for a moment. So an answer of the watch only raises a suspicion
 * ({@link #suspect}), and a linearizable read decides ({@link #check}). Used on the view's thread
 * alone, one request at a time, so no epochs are needed to tell answers to earlier requests apart.
 */
final class ViewRewinds {
  /** etcd went back: the cluster and highest revision known before, and what it answered. */
  record Rewind(long oldClusterId, long newClusterId, long highestRevision, long revision) {
    /** In the words of the mirror's warning. */
    String describe() {
      return String.format(
          "it answered as cluster %x at revision %d, after cluster %x at revision %d (%s)",
          newClusterId,
          revision,
          oldClusterId,
          highestRevision,
          oldClusterId != newClusterId ? "another cluster" : "a lower revision: restored or wiped");
    }
  }

  private boolean known;
  private long clusterId;
  private long highest;

  /** What the view knows from now on: a fresh snapshot read at {@code revision}. */
  void reset(long clusterId, long revision) {
    known = true;
    this.clusterId = clusterId;
    highest = revision;
  }

  /** The highest revision known: the floor of a request sent now. */
  long floor() {
    return highest;
  }

  /**
   * Whether an answer of the watch hints that etcd went back; one that does not raises the highest
   * revision known (a member answered at it, so etcd had committed it).
   */
  boolean suspect(long clusterId, long revision) {
    if (known && (clusterId != this.clusterId || revision < highest)) {
      return true;
    }
    highest = Math.max(highest, revision);
    return false;
  }

  /**
   * A linearizable answer to a request sent when {@link #floor()} was {@code floor}.
   *
   * @return how etcd went back, or {@code null} when it did not
   */
  Rewind check(long floor, long clusterId, long revision) {
    if (!known) {
      reset(clusterId, revision);
      return null;
    }
    if (clusterId != this.clusterId || revision < floor) {
      return new Rewind(this.clusterId, clusterId, highest, revision);
    }
    highest = Math.max(highest, revision);
    return null;
  }
}
