package io.demandfold.http;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The JDK HTTP server's limits on connections, time and size (docs/http-api.md, "Limits"). The JDK
 * reads them from system properties once per JVM, when its first server is created: {@link
 * #apply()} sets each one the JVM was not started with ({@code -D} wins), before {@link
 * DemandServer#bind} creates its server. In a demandfold process that server is the only one.
 */
final class HttpLimits {
  /** Threads that read requests (line, headers) and route them; each slow sender holds one. */
  static final int READ_THREADS = 16;

  /** Connections accepted and readable while every reading thread is busy; more are closed. */
  static final int READ_QUEUE = 1024;

  /** Seconds to receive a whole request (line, headers, body) once its first bytes arrived. */
  static final int REQUEST_SECONDS = 10;

  /** Seconds to send a whole response once its headers are sent. */
  static final int RESPONSE_SECONDS = 30;

  /**
   * Seconds a connection may stay idle: after a response ({@code keep-alive}), or when accepted
   * with nothing sent (then the smaller of this and {@link #REQUEST_SECONDS}).
   */
  static final int IDLE_SECONDS = 30;

  /** Open connections; the JDK closes a connection accepted above it at once. */
  static final int MAX_CONNECTIONS = 4096;

  /** Header lines of a request; more and the connection is closed. */
  static final int MAX_HEADERS = 100;

  /** Bytes of a request's headers (names and values); more and the connection is closed. */
  static final int MAX_HEADER_BYTES = 32 * 1024;

  private static final Map<String, String> PROPERTIES = properties();

  private HttpLimits() {}

  private static Map<String, String> properties() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("sun.net.httpserver.maxReqTime", String.valueOf(REQUEST_SECONDS));
    p.put("sun.net.httpserver.maxRspTime", String.valueOf(RESPONSE_SECONDS));
    p.put("sun.net.httpserver.idleInterval", String.valueOf(IDLE_SECONDS));
    p.put("jdk.httpserver.maxConnections", String.valueOf(MAX_CONNECTIONS));
    p.put("sun.net.httpserver.maxReqHeaders", String.valueOf(MAX_HEADERS));
    p.put("sun.net.httpserver.maxReqHeaderSize", String.valueOf(MAX_HEADER_BYTES));
    return p;
  }

  /** Sets every limit not given to the JVM; returns them as in effect, for the log. */
  static synchronized String apply() {
    PROPERTIES.forEach(
        (name, value) -> {
          if (System.getProperty(name) == null) {
            System.setProperty(name, value);
          }
        });
    return PROPERTIES.keySet().stream()
        .map(name -> name + "=" + System.getProperty(name))
        .collect(Collectors.joining(" "));
  }
}
