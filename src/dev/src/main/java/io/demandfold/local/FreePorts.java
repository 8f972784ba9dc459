package io.demandfold.local;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports on 127.0.0.1 (never the same one twice in this JVM) and a listening probe. A port
 * is picked below the kernel's ephemeral range (Linux: {@code net.ipv4.ip_local_port_range}), from
 * {@value #LOWEST} up: outgoing connections take their source ports from that range, so a port
 * picked inside it (as binding port 0 does) can be taken by one between the moment it is handed out
 * and the moment its server binds it ("address already in use", seen when a 3-member etcd started).
 * Where the range cannot be read, or leaves too few ports below it, the kernel picks.
 */
public final class FreePorts {
  static final InetAddress LOOPBACK = loopback();
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
  private static final int ATTEMPTS = 100;
  private static final int CONNECT_TIMEOUT_MS = 500;

  /** The lowest port handed out below the ephemeral range. */
  static final int LOWEST = 10_000;

  private static final int MIN_CHOICE = 1_000;
  static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  /** The first port of the ephemeral range, or 0 when it is not known. */
  static final int EPHEMERAL_LOW = ephemeralLow();

  private FreePorts() {}

  /** A port that was free on 127.0.0.1 a moment ago and that this JVM has not handed out before. */
  public static int next() {
    if (EPHEMERAL_LOW - LOWEST >= MIN_CHOICE) {
      for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        int port = LOWEST + ThreadLocalRandom.current().nextInt(EPHEMERAL_LOW - LOWEST);
        if (!HANDED_OUT.contains(port) && bindable(port) && HANDED_OUT.add(port)) {
          return port;
        }
      }
    }
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

  private static boolean bindable(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, LOOPBACK)) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int ephemeralLow() {
    try {
      // read as a stream: /proc reports a size its contents do not have (readString gets "3")
      String text;
      try (InputStream in = Files.newInputStream(EPHEMERAL_RANGE)) {
        text = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
      }
      String[] range = text.trim().split("\\s+");
      return Integer.parseInt(range[0]);
    } catch (IOException | RuntimeException e) {
      return 0;
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
