package io.demandfold.mirror;

/**
 * The outcome of one read-join-CAS.
 *
 * @param result how it ended
 * @param casRetries how many compare-and-swaps lost a race first
 * @param replacedInvalid whether an unreadable stored value was replaced
 * @param error the failure, when {@link MirrorResult#FAILED}
 */
public record MirrorOutcome(
    MirrorResult result, int casRetries, boolean replacedInvalid, Throwable error) {

  static MirrorOutcome of(MirrorResult result, int casRetries, boolean replacedInvalid) {
    return new MirrorOutcome(result, casRetries, replacedInvalid, null);
  }

  static MirrorOutcome failed(Throwable error, int casRetries) {
    return new MirrorOutcome(MirrorResult.FAILED, casRetries, false, error);
  }
}
