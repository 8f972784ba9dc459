package io.demandfold.core;

import static io.demandfold.core.ShardRecord.ABSENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ShardRecordTest {
  private static final SealedTimes NONE = SealedTimes.empty();

  @Test
  void shouldCheckEveryFieldInTheConstructorAsTheBuilderDoes() {
    assertThatThrownBy(() -> new ShardRecord("", 1, 0, ABSENT, ABSENT, 1, 1, Source.WRITER, NONE))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage("field 'shard' is empty");
    assertThatThrownBy(
            () -> new ShardRecord("s", ABSENT, 0, ABSENT, ABSENT, 1, 1, Source.WRITER, NONE))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage("missing required field 'sealed_through'");
    assertThatThrownBy(() -> new ShardRecord("s", -5, 0, ABSENT, ABSENT, 1, 1, Source.WRITER, NONE))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage("field 'sealed_through' is -5; must be >= 0");
    assertThatThrownBy(() -> new ShardRecord("s", 1, -2, ABSENT, ABSENT, 1, 1, Source.WRITER, NONE))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage("field 'sealed_bytes_through' is -2; must be >= 0");
    assertThatThrownBy(() -> new ShardRecord("s", 1, 0, -3, ABSENT, 1, 1, Source.WRITER, NONE))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage("field 'merged_through' is -3; must be >= 0");
    assertThatThrownBy(() -> new ShardRecord("s", 1, 0, ABSENT, 2, 1, 1, Source.WRITER, NONE))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage("field 'merged_epoch' is 2 but 'merged_through' is absent");
    assertThatThrownBy(
            () -> new ShardRecord("s", 1, 0, ABSENT, ABSENT, 1, ABSENT, Source.WRITER, NONE))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage("missing required field 'writer_epoch'");
    assertThatThrownBy(() -> new ShardRecord("s", 1, 0, ABSENT, ABSENT, 1, 1, null, NONE))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage("missing required field 'source'");

    ShardRecord built =
        ShardRecord.builder("s")
            .sealedThrough(3)
            .mergedThrough(2)
            .writerEpoch(1)
            .flushedAtMs(-7)
            .source(Source.SCAN)
            .build();
    assertThat(new ShardRecord("s", 3, 0, 2, ABSENT, -7, 1, Source.SCAN, NONE)).isEqualTo(built);
  }

  @Test
  void shouldReportTheBuildersFailuresInTheirOrder() {
    assertThatThrownBy(() -> ShardRecord.builder("").build()).hasMessage("field 'shard' is empty");
    assertThatThrownBy(() -> ShardRecord.builder("s").build())
        .hasMessage("missing required field 'sealed_through'");
    assertThatThrownBy(() -> ShardRecord.builder("s").sealedThrough(1).build())
        .hasMessage("missing required field 'flushed_at_ms'");
    assertThatThrownBy(() -> ShardRecord.builder("s").sealedThrough(1).flushedAtMs(1).build())
        .hasMessage("missing required field 'writer_epoch'");
    assertThatThrownBy(
            () ->
                ShardRecord.builder("s")
                    .sealedThrough(1)
                    .flushedAtMs(1)
                    .writerEpoch(1)
                    .mergedEpoch(4)
                    .build())
        .hasMessage("missing required field 'source'");
    assertThatThrownBy(
            () ->
                ShardRecord.builder("s")
                    .sealedThrough(1)
                    .flushedAtMs(1)
                    .writerEpoch(1)
                    .source(Source.WRITER)
                    .mergedEpoch(4)
                    .build())
        .hasMessage("field 'merged_epoch' is 4 but 'merged_through' is absent");
  }
}
