package io.demandfold.app;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RestoreLogTest {
  @Test
  void shouldLogTheStartAndTheEndOfARestoreInTheFormTheBenchReads() {
    Logger logger = (Logger) LoggerFactory.getLogger(RestoreLog.class);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    try {
      RestoreLog listener = new RestoreLog();
      TopicPartition tp = new TopicPartition("app-shard-records-changelog", 3);
      listener.onRestoreStart(tp, "shard-records", 10, 130);
      listener.onBatchRestored(tp, "shard-records", 130, 120);
      listener.onRestoreEnd(tp, "shard-records", 120);
    } finally {
      logger.detachAppender(appender);
    }

    assertThat(appender.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .hasSize(2)
        .satisfies(
            lines -> {
              assertThat(lines.get(0))
                  .isEqualTo(
                      "restoring shard-records partition 3 from changelog"
                          + " app-shard-records-changelog: offsets 10 to 130");
              // io.demandfold.bench.Restores reads this form
              assertThat(lines.get(1))
                  .matches("restored shard-records partition 3: 120 records in \\d+ ms");
            });
  }

  @Test
  void shouldKeepAnEmptyRestoreOutOfTheInfoLog() {
    Logger logger = (Logger) LoggerFactory.getLogger(RestoreLog.class);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    try {
      RestoreLog listener = new RestoreLog();
      TopicPartition tp = new TopicPartition("app-table-outbox-changelog", 5);
      listener.onRestoreStart(tp, "table-outbox", 0, 0);
      listener.onRestoreEnd(tp, "table-outbox", 0);
    } finally {
      logger.detachAppender(appender);
    }
    assertThat(appender.list).noneMatch(e -> e.getLevel().isGreaterOrEqual(Level.INFO));
  }

  @Test
  void shouldWriteTheEndLineWithPlainNumbers() {
    assertThat(RestoreLog.finished("table-demand", 11, 1234567, 2048))
        .isEqualTo("restored table-demand partition 11: 1234567 records in 2048 ms");
  }
}
