package io.demandfold.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RestoresTest {
  private static final String LOG =
      """
      14:02:01.112 INFO  i.d.app.DemandfoldService - streams REBALANCING -> RUNNING
      14:02:03.501 INFO  i.d.app.RestoreLog - restoring shard-records partition 4 from changelog \
      a-shard-records-changelog: offsets 0 to 5120
      14:02:04.730 INFO  i.d.app.RestoreLog - restored shard-records partition 4: 5120 records in 1229 ms
      14:02:04.731 INFO  i.d.app.RestoreLog - restored shard-outbox partition 4: 0 records in 3 ms
      14:02:04.990 INFO  i.d.app.RestoreLog - restored shard-records partition 10: 4800 records in 1488 ms
      """;

  @Test
  void shouldReadEveryEndLine() {
    assertThat(Restores.parse(LOG))
        .containsExactly(
            new Restores.Restore("shard-records", 4, 5120, 1229),
            new Restores.Restore("shard-outbox", 4, 0, 3),
            new Restores.Restore("shard-records", 10, 4800, 1488));
  }

  @Test
  void shouldSumRecordsAndTakeTheLongest() {
    List<Restores.Restore> r = Restores.parse(LOG);
    assertThat(Restores.records(r)).isEqualTo(9920);
    assertThat(Restores.longestMs(r)).isEqualTo(1488);
    assertThat(Restores.byStore(r))
        .isEqualTo(
            "shard-outbox: 1 partitions, 0 records, 3 ms,"
                + " shard-records: 2 partitions, 9,920 records, 1488 ms");
  }

  @Test
  void shouldSayNoneWithoutRestores() {
    List<Restores.Restore> r = Restores.parse("streams REBALANCING -> RUNNING\n");
    assertThat(r).isEmpty();
    assertThat(Restores.records(r)).isZero();
    assertThat(Restores.longestMs(r)).isZero();
    assertThat(Restores.byStore(r)).isEqualTo("none");
  }
}
