package io.demandfold.http;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * The names a request may give in its {@code Host} header. A page on an attacker's site can make a
 * browser send requests to this server by rebinding its own name to our address (DNS rebinding);
 * the browser then still names the attacker's host, which no instance answers to. Allowed: no
 * {@code Host} (a browser always sends one), an IP address (rebinding needs a name), {@code
 * localhost}, this instance's own {@code application.server} host, and the names of {@code
 * http.allowed.hosts}. The port is not compared: proxies and published container ports change it.
 */
final class AllowedHosts {
  private final Set<String> names = new HashSet<>();

  /**
   * @param self this instance's {@code application.server}, {@code host:port}
   * @param extra more allowed names ({@code http.allowed.hosts})
   */
  AllowedHosts(String self, Iterable<String> extra) {
    names.add("localhost");
    names.add(hostOf(self));
    for (String n : extra) {
      if (!n.isBlank()) {
        names.add(normalize(n.trim()));
      }
    }
  }

  /** Whether a request with this {@code Host} header (null: none) may be answered. */
  boolean allows(String hostHeader) {
    if (hostHeader == null) {
      return true;
    }
    String host = hostOf(hostHeader.trim());
    return isIpLiteral(host) || names.contains(host);
  }

  /** The host of {@code host[:port]} or {@code [v6][:port]}, lower case, without a trailing dot. */
  static String hostOf(String hostPort) {
    String h = hostPort;
    if (h.startsWith("[")) {
      int end = h.indexOf(']');
      h = end < 0 ? h : h.substring(0, end + 1);
    } else {
      int colon = h.indexOf(':');
      if (colon >= 0 && colon == h.lastIndexOf(':')) {
        h = h.substring(0, colon);
      }
    }
    return normalize(h);
  }

  private static String normalize(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    return h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
  }

  /** A dotted-quad IPv4 address, or a bracketed or bare IPv6 address. */
  static boolean isIpLiteral(String host) {
    if (host.startsWith("[") && host.endsWith("]")) {
      return isIpv6(host.substring(1, host.length() - 1));
    }
    if (host.indexOf(':') >= 0) {
      return isIpv6(host);
    }
    String[] parts = host.split("\\.", -1);
    if (parts.length != 4) {
      return false;
    }
    for (String p : parts) {
      if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(c -> c >= '0' && c <= '9')) {
        return false;
      }
      if (Integer.parseInt(p) > 255) {
        return false;
      }
    }
    return true;
  }

  private static boolean isIpv6(String s) {
    int zone = s.indexOf('%');
    String a = zone < 0 ? s : s.substring(0, zone);
    if (a.isEmpty() || a.indexOf(':') < 0) {
      return false;
    }
    for (int i = 0; i < a.length(); i++) {
      char c = a.charAt(i);
      boolean ok =
          (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == ':' || c == '.' || c == '%';
      if (!ok) {
        return false;
      }
    }
    return true;
  }
}
