package io.demandfold.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Free TCP ports on 127.0.0.1 (never the same one twice in this JVM) and a listening probe. */
final class FreePorts {
  static final InetAddress LOOPBACK = loopback();
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
  private static final int ATTEMPTS = 100;
  private static final int CONNECT_TIMEOUT_MS = 500;

  private FreePorts() {}

  /** A port that was free on 127.0.0.1 a moment ago and that this JVM has not handed out before. */
  static int next() {
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      int port;
      try (ServerSocket socket = new ServerSocket(0, 1, LOOPBACK)) {
        port = socket.getLocalPort();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot bind a free port on 127.0.0.1", e);
      }
      if (HANDED_OUT.add(port)) {
        return port;
      }
    }
    throw new IllegalStateException(
        "no unused free port on 127.0.0.1 after " + ATTEMPTS + " attempts");
  }

  /** Whether something accepts TCP connections on 127.0.0.1:{@code port}. */
  static boolean isListening(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(LOOPBACK, port), CONNECT_TIMEOUT_MS);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static InetAddress loopback() {
    try {
      return InetAddress.getByAddress("127.0.0.1", new byte[] {127, 0, 0, 1});
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }
}
