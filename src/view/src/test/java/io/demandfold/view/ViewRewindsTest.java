package io.demandfold.view;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When etcd's answers say it went back, and when they only look like it. */
class ViewRewindsTest {
  private final ViewRewinds rewinds = new ViewRewinds();

  @Test
  void shouldSuspectAWatchAnswerBelowWhatEtcdShowedAndLetAReadDecide() {
    rewinds.reset(7, 100);
    assertThat(rewinds.suspect(7, 100)).isFalse();
    assertThat(rewinds.suspect(7, 120)).isFalse();
    assertThat(rewinds.floor()).isEqualTo(120);
    assertThat(rewinds.suspect(7, 110)).as("a member behind the one that answered 120").isTrue();
    assertThat(rewinds.suspect(8, 130)).as("another cluster").isTrue();

    // a lagging member: the linearizable read sent after 120 was seen answers at 121
    assertThat(rewinds.check(120, 7, 121)).isNull();
    assertThat(rewinds.floor()).isEqualTo(121);

    // restored: the read answers below the floor it was sent with
    ViewRewinds.Rewind lost = rewinds.check(121, 7, 40);
    assertThat(lost).isEqualTo(new ViewRewinds.Rewind(7, 7, 121, 40));
    assertThat(lost.describe())
        .isEqualTo(
            "it answered as cluster 7 at revision 40, after cluster 7 at revision 121 (a lower"
                + " revision: restored or wiped)");
    rewinds.reset(7, 40);
    assertThat(rewinds.suspect(7, 41)).isFalse();
  }

  @Test
  void shouldTakeAnAnswerOfAnotherClusterAsARewindWhateverItsRevision() {
    rewinds.reset(7, 100);
    ViewRewinds.Rewind other = rewinds.check(100, 9, 500);
    assertThat(other).isNotNull();
    assertThat(other.describe()).endsWith("(another cluster)");
  }

  @Test
  void shouldBoundAnAnswerOnlyByWhatWasSeenBeforeItsRequest() {
    rewinds.reset(7, 100);
    // sent at floor 100; meanwhile the watch heard 150; the read, served at 120, is no rewind
    long floor = rewinds.floor();
    assertThat(rewinds.suspect(7, 150)).isFalse();
    assertThat(rewinds.check(floor, 7, 120)).isNull();
    assertThat(rewinds.floor()).isEqualTo(150);
  }
}
