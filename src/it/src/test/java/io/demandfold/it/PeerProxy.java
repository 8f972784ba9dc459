package io.demandfold.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * A TCP proxy in front of one etcd member's peer port, on loopback: the members advertise the
 * proxy's port as that member's peer URL. It reads the HTTP request head of each connection (etcd's
 * peer requests name their sender in {@code X-Server-From}, the member id in hex) and drops the
 * connection when {@code refused} says so for that sender, which is how a test cuts a member off
 * from its peers while clients still reach it.
 */
final class PeerProxy implements AutoCloseable {
  private static final int MAX_HEAD = 64 * 1024;

  private final ServerSocket server;
  private final int target;
  private final Predicate<String> refused;
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final Thread acceptor;

  /** A proxied connection and the member id (hex) that opened it. */
  private record Link(String from, Socket in, Socket out) {
    void close() {
      closeQuietly(in);
      closeQuietly(out);
    }
  }

  /**
   * @param server the bound listening socket
   * @param target the member's real peer port
   * @param refused given the sender's member id (hex, lower case; "" when the head names none),
   *     whether to drop the connection
   */
  PeerProxy(ServerSocket server, int target, Predicate<String> refused) {
    this.server = server;
    this.target = target;
    this.refused = refused;
    acceptor = new Thread(this::accept, "peer-proxy-" + server.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  /** Closes every open connection that {@code refused} now drops. */
  void enforce() {
    for (Link l : links) {
      if (refused.test(l.from())) {
        l.close();
        links.remove(l);
      }
    }
  }

  private void accept() {
    while (!server.isClosed()) {
      Socket in;
      try {
        in = server.accept();
      } catch (IOException e) {
        return;
      }
      Thread t = new Thread(() -> serve(in), "peer-proxy-conn");
      t.setDaemon(true);
      t.start();
    }
  }

  private void serve(Socket in) {
    Socket out = null;
    try {
      in.setSoTimeout(10_000);
      byte[] head = readHead(in.getInputStream());
      in.setSoTimeout(0);
      String from = sender(head);
      if (refused.test(from)) {
        closeQuietly(in);
        return;
      }
      out = new Socket(InetAddress.getLoopbackAddress(), target);
      Link link = new Link(from, in, out);
      links.add(link);
      if (refused.test(from)) { // cut while connecting
        link.close();
        links.remove(link);
        return;
      }
      out.getOutputStream().write(head);
      Socket o = out;
      Thread back =
          new Thread(
              () -> {
                pipe(o, in);
                link.close();
                links.remove(link);
              },
              "peer-proxy-back");
      back.setDaemon(true);
      back.start();
      pipe(in, out);
      link.close();
      links.remove(link);
    } catch (IOException e) {
      closeQuietly(in);
      closeQuietly(out);
    }
  }

  /** The bytes up to and including the blank line ending the request head (or all there were). */
  private static byte[] readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    byte[] end = {'\r', '\n', '\r', '\n'};
    while (head.size() < MAX_HEAD) {
      int b = in.read();
      if (b < 0) {
        break;
      }
      head.write(b);
      matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
      if (matched == end.length) {
        break;
      }
    }
    return head.toByteArray();
  }

  private static String sender(byte[] head) {
    for (String line : new String(head, StandardCharsets.ISO_8859_1).split("\r\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase("X-Server-From")) {
        return line.substring(colon + 1).trim().toLowerCase(Locale.ROOT);
      }
    }
    return "";
  }

  private static void pipe(Socket from, Socket to) {
    byte[] buf = new byte[16 * 1024];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buf)) >= 0) {
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // the other side closed, or the link was cut
    }
  }

  private static void closeQuietly(Socket s) {
    if (s != null) {
      try {
        s.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      // closing anyway
    }
    for (Link l : links) {
      l.close();
    }
    links.clear();
  }
}
