package io.demandfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoggingTest {
  private final LoggerContext context = new LoggerContext();
  private final ListAppender<ILoggingEvent> console = new ListAppender<>();

  @BeforeEach
  void consoleLikeLogbackXml() {
    context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
    console.setContext(context);
    console.setName(Logging.CONSOLE);
    console.start();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.INFO);
    root.addAppender(console);
  }

  private void logTheFirstRun() {
    context
        .getLogger("org.apache.kafka.clients.NetworkClient")
        .warn("{demandfold-local-by-target-repartition=UNKNOWN_TOPIC_OR_PARTITION}");
    context.getLogger("io.grpc.netty.NettyClientHandler").warn("Received GOAWAY");
    context.getLogger("io.demandfold.app.DemandfoldService").info("streams CREATED -> RUNNING");
    context.getLogger("io.demandfold.local.ChildProcess").warn("etcd ignored SIGTERM");
    context.getLogger("org.apache.kafka.streams.KafkaStreams").error("stream thread failed");
  }

  private List<String> consoleMessages() {
    return console.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  @Test
  void shouldKeepOnlyOwnLinesAndErrorsOnTheConsoleAndEverythingInTheFile(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("data/demandfold.log");
    AutoCloseable quiet = Logging.toFile(context, file, false);
    logTheFirstRun();
    quiet.close();
    assertThat(consoleMessages())
        .containsExactly(
            "streams CREATED -> RUNNING", "etcd ignored SIGTERM", "stream thread failed");
    String log = Files.readString(file);
    assertThat(log)
        .contains("WARN  [main] org.apache.kafka.clients.NetworkClient - {demandfold-local")
        .contains("WARN  [main] io.grpc.netty.NettyClientHandler - Received GOAWAY")
        .contains("INFO  [main] io.demandfold.app.DemandfoldService - streams CREATED -> RUNNING")
        .contains("etcd ignored SIGTERM")
        .contains("stream thread failed");

    console.list.clear();
    context.getLogger("org.apache.kafka.clients.NetworkClient").warn("after close");
    assertThat(consoleMessages())
        .as("undone: the console has it all again")
        .containsExactly("after close");
    assertThat(Files.readString(file)).doesNotContain("after close");
  }

  @Test
  void shouldKeepTheWholeLogOnTheConsoleWhenVerbose(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("demandfold.log");
    AutoCloseable verbose = Logging.toFile(context, file, true);
    logTheFirstRun();
    verbose.close();
    assertThat(consoleMessages()).hasSize(5);
    assertThat(Files.readString(file).lines()).hasSize(5);
  }

  @Test
  void shouldRouteJavaUtilLoggingIntoSlf4j() {
    ListAppender<ILoggingEvent> seen = new ListAppender<>();
    Logger grpc = (Logger) org.slf4j.LoggerFactory.getLogger("io.grpc.netty.NettyClientHandler");
    seen.setContext(grpc.getLoggerContext());
    seen.start();
    grpc.addAppender(seen);
    java.util.logging.Logger julRoot = java.util.logging.Logger.getLogger("");
    java.util.logging.Handler[] handlers = julRoot.getHandlers();
    try {
      Logging.routeJavaUtilLogging();
      java.util.logging.Logger.getLogger("io.grpc.netty.NettyClientHandler")
          .log(
              java.util.logging.Level.WARNING,
              "Received GOAWAY with ENHANCE_YOUR_CALM. Debug data: {0}",
              "too_many_pings");
      assertThat(seen.list)
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.getLevel()).isEqualTo(Level.WARN);
                assertThat(e.getFormattedMessage())
                    .isEqualTo(
                        "Received GOAWAY with ENHANCE_YOUR_CALM. Debug data: too_many_pings");
              });
    } finally {
      grpc.detachAppender(seen);
      org.slf4j.bridge.SLF4JBridgeHandler.uninstall();
      for (java.util.logging.Handler h : handlers) {
        julRoot.addHandler(h);
      }
    }
  }
}
