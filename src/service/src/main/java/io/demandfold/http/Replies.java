package io.demandfold.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** Reading requests and writing replies: query parameters, JSON bodies, JSON errors. */
final class Replies {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String JSON_TYPE = "application/json; charset=utf-8";

  private Replies() {}

  /** Writes {@code body} as JSON with {@code status}. */
  static void json(Exchange ex, int status, JsonNode body) throws IOException {
    send(ex, status, JSON_TYPE, JSON.writeValueAsBytes(body));
  }

  /** Writes {@code {"status":N,"error":"...","message":"..."}}. */
  static void error(Exchange ex, int status, String message) throws IOException {
    ObjectNode o = JSON.createObjectNode();
    o.put("status", status);
    o.put("error", reason(status));
    o.put("message", message);
    json(ex, status, o);
  }

  /** Writes a body; a HEAD request gets the headers only. */
  static void send(Exchange ex, int status, String contentType, byte[] body) {
    ex.setHeader("Cache-Control", "no-store");
    // the browser must not guess another type than ours (a JSON value that looks like HTML)
    ex.setHeader("X-Content-Type-Options", "nosniff");
    ex.send(status, contentType, body);
  }

  /** Refuses any method but GET and HEAD with 405. */
  static void requireGet(Exchange ex) {
    String m = ex.method();
    if (!m.equals("GET") && !m.equals("HEAD")) {
      ex.setHeader("Allow", "GET, HEAD");
      throw new ApiException(405, "method " + m + " not allowed; use GET");
    }
  }

  /**
   * The query parameters of the request, each at most once and among {@code allowed}.
   *
   * @throws ApiException 400 naming an unknown, repeated or undecodable parameter
   */
  static Map<String, String> query(Exchange ex, Set<String> allowed) {
    Map<String, String> out = new LinkedHashMap<>();
    String raw = ex.rawQuery();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
      if (!allowed.contains(name)) {
        throw ApiException.badRequest(
            "unknown parameter '" + name + "'; expected one of " + String.join(", ", allowed));
      }
      if (out.put(name, value) != null) {
        throw ApiException.badRequest("parameter '" + name + "' given more than once");
      }
    }
    return out;
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest("malformed query string: " + e.getMessage());
    }
  }

  /** The {@code error} word of a status. */
  static String reason(int status) {
    switch (status) {
      case 400:
        return "bad_request";
      case 404:
        return "not_found";
      case 405:
        return "method_not_allowed";
      case 421:
        return "misdirected_request";
      case 431:
        return "request_header_fields_too_large";
      case 502:
        return "bad_gateway";
      case 503:
        return "unavailable";
      default:
        return status >= 500 ? "internal" : "error";
    }
  }
}
