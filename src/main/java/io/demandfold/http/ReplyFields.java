package io.demandfold.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Reading the fields of another instance's reply strictly: a field that is missing or of another
 * type fails with {@link IllegalArgumentException} naming it, so that a reply of another shape (a
 * newer version's, a broken one) is refused whole rather than read as zeros and blanks.
 */
final class ReplyFields {
  private ReplyFields() {}

  static String text(JsonNode o, String field) {
    JsonNode v = o.get(field);
    if (v == null || !v.isTextual()) {
      throw wrong(field, "a string", v);
    }
    return v.asText();
  }

  /** An integer that fits a long. */
  static long integer(JsonNode o, String field) {
    JsonNode v = o.get(field);
    if (v == null || !v.isIntegralNumber() || !v.canConvertToLong()) {
      throw wrong(field, "an integer", v);
    }
    return v.asLong();
  }

  /** An integer that fits a long, or null. */
  static OptionalLong optionalInteger(JsonNode o, String field) {
    JsonNode v = o.get(field);
    return v == null || v.isNull() ? OptionalLong.empty() : OptionalLong.of(integer(o, field));
  }

  static double number(JsonNode o, String field) {
    JsonNode v = o.get(field);
    if (v == null || !v.isNumber()) {
      throw wrong(field, "a number", v);
    }
    return v.asDouble();
  }

  static JsonNode array(JsonNode o, String field) {
    JsonNode v = o.get(field);
    if (v == null || !v.isArray()) {
      throw wrong(field, "a list", v);
    }
    return v;
  }

  static JsonNode object(JsonNode o, String field) {
    JsonNode v = o.get(field);
    if (v == null || !v.isObject()) {
      throw wrong(field, "an object", v);
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
