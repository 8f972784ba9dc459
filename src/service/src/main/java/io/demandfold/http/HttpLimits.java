package io.demandfold.http;

import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;

/**
 * The HTTP server's limits on connections, time and size (docs/http-api.md, "Limits"), and the
 * Jetty server and connector built with them. Jetty reads and writes without a thread per
 * connection, so a slow client costs a connection, not a thread; its idle timeout closes a silent
 * connection, and {@link ConnectionDeadlines} one that sends or reads too slowly.
 */
final class HttpLimits {
  /** Jetty's threads: they parse requests as bytes arrive and run the quick handlers. */
  static final int THREADS = 16;

  /**
   * Seconds to receive a whole request (line and headers) once its first byte arrived, or once the
   * connection was accepted for its first request.
   */
  static final int REQUEST_SECONDS = 10;

  /** Seconds to send a whole response once it begins. */
  static final int RESPONSE_SECONDS = 30;

  /** Seconds a connection may stay silent (between requests, or in the middle of one). */
  static final int IDLE_SECONDS = 30;

  /** Open connections; at the limit, the server accepts no more until one closes. */
  static final int MAX_CONNECTIONS = 4096;

  /** Connections waiting to be accepted (the listen backlog). */
  static final int ACCEPT_QUEUE = 64;

  /** Header fields of a request; more and it gets 431. */
  static final int MAX_HEADERS = 100;

  /** Bytes of a request's line and headers; more and it gets 431 (or 414 for a long line). */
  static final int MAX_HEADER_BYTES = 32 * 1024;

  private HttpLimits() {}

  /** A server of {@link #THREADS} daemon threads, not started. */
  static Server server(String name) {
    QueuedThreadPool threads = new QueuedThreadPool(THREADS, 2);
    threads.setName(name);
    threads.setDaemon(true);
    Server server =
        new Server(threads, new ScheduledExecutorScheduler(name + "-timer", true), null);
    server.setStopTimeout(0);
    return server;
  }

  /**
   * An HTTP/1.1 connector of {@code server} on {@code host:port} with every limit, {@code
   * deadlines} watching its connections; not yet bound.
   */
  static ServerConnector connector(
      Server server, String host, int port, ConnectionDeadlines deadlines) {
    HttpConfiguration config = new HttpConfiguration();
    config.setRequestHeaderSize(MAX_HEADER_BYTES);
    config.setSendServerVersion(false);
    config.setSendXPoweredBy(false);
    // one acceptor and one selector: they wait for connections and bytes, never for a handler
    ServerConnector connector =
        new ServerConnector(server, 1, 1, new HttpConnectionFactory(config));
    connector.setHost(host);
    connector.setPort(port);
    connector.setIdleTimeout(IDLE_SECONDS * 1000L);
    connector.setAcceptQueueSize(ACCEPT_QUEUE);
    connector.addEventListener(deadlines);
    server.addConnector(connector);
    server.addBean(new NetworkConnectionLimit(MAX_CONNECTIONS, connector));
    return connector;
  }
}
