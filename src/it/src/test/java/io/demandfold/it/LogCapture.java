package io.demandfold.it;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.StackTraceElementProxy;
import ch.qos.logback.core.read.ListAppender;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Captures everything logged in this JVM (messages, exceptions and their causes) while open, with
 * Kafka's client loggers at INFO so that the configuration dumps of every Kafka client are in it.
 */
final class LogCapture implements AutoCloseable {
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
  private final Logger kafka = (Logger) LoggerFactory.getLogger("org.apache.kafka");
  private final Level kafkaLevel;

  LogCapture() {
    appender.setContext(root.getLoggerContext());
    appender.start();
    root.addAppender(appender);
    kafkaLevel = kafka.getLevel();
    kafka.setLevel(Level.INFO);
  }

  /** Every event so far as text: level, logger, message, and each exception with its causes. */
  String text() {
    List<ILoggingEvent> events;
    synchronized (appender) {
      events = new ArrayList<>(appender.list);
    }
    StringBuilder sb = new StringBuilder();
    for (ILoggingEvent e : events) {
      sb.append(e.getLevel())
          .append(' ')
          .append(e.getLoggerName())
          .append(" - ")
          .append(e.getFormattedMessage())
          .append('\n');
      for (IThrowableProxy t = e.getThrowableProxy(); t != null; t = t.getCause()) {
        sb.append("  ").append(t.getClassName()).append(": ").append(t.getMessage()).append('\n');
        for (StackTraceElementProxy s : t.getStackTraceElementProxyArray()) {
          sb.append("    ").append(s.getSTEAsString()).append('\n');
        }
      }
    }
    return sb.toString();
  }

  /** How many events were logged so far. */
  int size() {
    synchronized (appender) {
      return appender.list.size();
    }
  }

  @Override
  public void close() {
    kafka.setLevel(kafkaLevel);
    root.detachAppender(appender);
    appender.stop();
  }
}
