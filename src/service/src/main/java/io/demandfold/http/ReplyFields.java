package io.demandfold.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Predicate;

/**
 * Reading the fields of another instance's reply strictly: a field that is missing or of another
 * type fails with {@link IllegalArgumentException} naming it, so that a reply of another shape (a
 * newer version's, a broken one) is refused whole rather than read as zeros and blanks.
 */
final class ReplyFields {
  private ReplyFields() {}

  static String text(JsonNode o, String field) {
    return field(o, field, JsonNode::isTextual, "a string").asText();
  }

  /** An integer that fits a long. */
  static long integer(JsonNode o, String field) {
    return field(o, field, v -> v.isIntegralNumber() && v.canConvertToLong(), "an integer")
        .asLong();
  }

  /** An integer that fits a long, or null. */
  static OptionalLong optionalInteger(JsonNode o, String field) {
    JsonNode v = o.get(field);
    return v == null || v.isNull() ? OptionalLong.empty() : OptionalLong.of(integer(o, field));
  }

  static double number(JsonNode o, String field) {
    return field(o, field, JsonNode::isNumber, "a number").asDouble();
  }

  static JsonNode array(JsonNode o, String field) {
    return field(o, field, JsonNode::isArray, "a list");
  }

  static JsonNode object(JsonNode o, String field) {
    return field(o, field, JsonNode::isObject, "an object");
  }

  /** Field {@code field} of {@code o}, when present and {@code ok}; else it is {@code expected}. */
  private static JsonNode field(JsonNode o, String field, Predicate<JsonNode> ok, String expected) {
    JsonNode v = o.get(field);
    if (v == null || !ok.test(v)) {
      throw wrong(field, expected, v);
    }
    return v;
  }

  /** A list of strings. */
  static List<String> texts(JsonNode o, String field) {
    List<String> out = new ArrayList<>();
    for (JsonNode v : array(o, field)) {
      if (!v.isTextual()) {
        throw wrong(field, "a list of strings", v);
      }
      out.add(v.asText());
    }
    return out;
  }

  private static IllegalArgumentException wrong(String field, String expected, JsonNode got) {
    return new IllegalArgumentException(
        "field '"
            + field
            + "': expected "
            + expected
            + ", got "
            + (got == null
                ? "none"
                : got.getNodeType().toString().toLowerCase(java.util.Locale.ROOT)));
  }
}
