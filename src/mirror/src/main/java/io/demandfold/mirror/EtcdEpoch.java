package io.demandfold.mirror;

/**
 * Notices from etcd's response headers that etcd lost writes the mirror saw it take: a response of
 * another cluster (a new cluster, or one restored from a snapshot under a new cluster id), or one
 * whose revision is lower than a revision seen before its request was sent (a restore from an older
 * snapshot, or the data directory wiped: etcd's revision never goes down otherwise). Each such
 * change starts a new epoch; answers to requests sent in an earlier epoch are not compared, so that
 * one loss is noticed once however many requests were in flight.
 *
 * <p>Only the revision known <em>before</em> a request was sent bounds its answer: requests in
 * flight together may be answered in any order, but a linearizable request (every request of the
 * mirror) sent after an answer at revision {@code r} is served at {@code r} or later, by whichever
 * member of the cluster serves it (a follower waits until it applied what the leader had
 * committed). So {@link #sent} is taken before the call that issues the request, never after: an
 * answer arriving in between may be of a request served after this one. A retry inside jetcd (a get
 * after {@code UNAVAILABLE}, any request after an expired auth token) leaves later still, so it is
 * served later, never earlier. Thread-safe.
 *
 * <pre>{@code
 * EtcdEpoch.Sent sent = epoch.sent();
 * // ... send the request; on its answer:
 * EtcdEpoch.Rewind lost = epoch.observe(sent, header.getClusterId(), header.getRevision());
 * }</pre>
 */
final class EtcdEpoch {
  /** What was known when a request was sent: the epoch and the highest revision seen. */
  record Sent(long epoch, long floor) {}

  /**
   * etcd went back: the cluster id seen before and now, the highest revision seen before and the
   * revision of the answer that showed it.
   */
  record Rewind(long oldClusterId, long newClusterId, long highestRevision, long revision) {
    boolean newCluster() {
      return oldClusterId != newClusterId;
    }
  }

  private long epoch;
  private boolean seen;
  private long clusterId;
  private long highest;

  /** To be taken before the call that issues a request (see the class comment). */
  synchronized Sent sent() {
    return new Sent(epoch, highest);
  }

  /**
   * An answer to the request sent at {@code sent} came with this header.
   *
   * @return what etcd lost, the first time an answer shows it; {@code null} otherwise
   */
  synchronized Rewind observe(Sent sent, long clusterId, long revision) {
    if (!seen) {
      seen = true;
      this.clusterId = clusterId;
      highest = revision;
      return null;
    }
    if (sent.epoch() != epoch) {
      return null; // sent before the last rewind: it may have been answered by etcd as it was
    }
    if (clusterId != this.clusterId || revision < sent.floor()) {
      Rewind r = new Rewind(this.clusterId, clusterId, highest, revision);
      epoch++;
      this.clusterId = clusterId;
      highest = revision;
      return r;
    }
    highest = Math.max(highest, revision);
    return null;
  }

  /** How many times etcd was seen to go back. */
  synchronized long rewinds() {
    return epoch;
  }
}
