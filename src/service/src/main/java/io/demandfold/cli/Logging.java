package io.demandfold.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;
import java.nio.file.Path;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * How the command line logs. Everything goes through SLF4J and logback ({@code logback.xml}): gRPC,
 * under the etcd client, logs through {@code java.util.logging}, which {@link
 * #routeJavaUtilLogging()} sends there too, so that its lines have the same format, levels and
 * destination as every other. {@link #toFile} writes the log to a file and, unless the console is
 * to keep it, leaves on the console only demandfold's own lines and errors ({@code demandfold
 * local}).
 */
public final class Logging {
  /** The console appender of {@code logback.xml}. */
  static final String CONSOLE = "STDERR";

  private static final String OWN = "io.demandfold.";

  private Logging() {}

  /** Routes {@code java.util.logging} into SLF4J (once per JVM). */
  static void routeJavaUtilLogging() {
    if (!SLF4JBridgeHandler.isInstalled()) {
      SLF4JBridgeHandler.removeHandlersForRootLogger();
      SLF4JBridgeHandler.install();
    }
  }

  /** {@link #toFile(LoggerContext, Path, boolean)} on this JVM's logback. */
  public static AutoCloseable toFile(Path file, boolean keepConsole) {
    return toFile((LoggerContext) LoggerFactory.getILoggerFactory(), file, keepConsole);
  }

  /**
   * Appends every log event of {@code context} to {@code file} (created with its directories) and,
   * unless {@code keepConsole}, lets through to the console appender only events of demandfold's
   * own loggers and errors. Closing the result undoes both.
   */
  static AutoCloseable toFile(LoggerContext context, Path file, boolean keepConsole) {
    Objects.requireNonNull(file, "file");
    ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger - %msg%n");
    encoder.start();
    FileAppender<ILoggingEvent> appender = new FileAppender<>();
    appender.setContext(context);
    appender.setName("FILE");
    appender.setFile(file.toString());
    appender.setAppend(true);
    appender.setEncoder(encoder);
    appender.start();
    if (!appender.isStarted()) {
      throw new IllegalStateException("cannot write the log file " + file);
    }
    root.addAppender(appender);
    Appender<ILoggingEvent> console = keepConsole ? null : root.getAppender(CONSOLE);
    OwnLinesAndErrors filter = new OwnLinesAndErrors();
    if (console != null) {
      filter.start();
      console.addFilter(filter);
    }
    return () -> {
      if (console != null) {
        var others = console.getCopyOfAttachedFiltersList();
        others.remove(filter);
        console.clearAllFilters();
        others.forEach(console::addFilter);
      }
      root.detachAppender(appender);
      appender.stop();
    };
  }

  /** Lets through demandfold's own events and every error; denies the rest. */
  static final class OwnLinesAndErrors extends Filter<ILoggingEvent> {
    @Override
    public FilterReply decide(ILoggingEvent e) {
      if (e.getLevel().isGreaterOrEqual(Level.ERROR) || e.getLoggerName().startsWith(OWN)) {
        return FilterReply.NEUTRAL;
      }
      return FilterReply.DENY;
    }
  }
}
