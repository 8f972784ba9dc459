package io.demandfold.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.demandfold.core.codec.EventDecoder;
import io.demandfold.core.codec.TableJson;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * What reaches logs, DLQ headers and printed output from hostile keys, names and values has every
 * character that is not plainly visible escaped.
 */
class PrintableTest {
  private static final String TAIL =
      "\"sealed_through\":5,\"flushed_at_ms\":1764400005000,\"writer_epoch\":1}";

  @Test
  void shouldEscapeControlAndFormattingCharactersAndBackslashes() {
    assertThat(Printable.escape("plain text: é, 日本, \uD83D\uDE00"))
        .isEqualTo("plain text: é, 日本, 😀");
    assertThat(Printable.escape("a\u0007b\nc\rd\te\u001b[2J\u007f\u0085"))
        .isEqualTo("a\\u0007b\\u000ac\\u000dd\\u0009e\\u001b[2J\\u007f\\u0085");
    assertThat(Printable.escape("\u2028\u2029\u202e\u2066\u200f\ufeff"))
        .isEqualTo("\\u2028\\u2029\\u202e\\u2066\\u200f\\ufeff");
    assertThat(Printable.escape("\ud800x\udc00")).isEqualTo("\\ud800x\\udc00");
    assertThat(Printable.escape("C:\\u0007")).as("a backslash is doubled").isEqualTo("C:\\\\u0007");
    assertThat(Printable.escape(null)).isNull();
    String safe = "nothing to escape";
    assertThat(Printable.escape(safe)).isSameAs(safe);
  }

  @Test
  void shouldEscapeHostileTextInTheMessagesOfRejectedInput() {
    assertThat(
            messageOf("{\"target\":\"t\",\"shard\":\"s\",\"source\":\"wr\\u001b[2Jiter\"," + TAIL))
        .contains("wr\\u001b[2Jiter")
        .doesNotContain("\u001b");
    assertThat(messageOf("{\"target\":\"t\",\"shard\":\"s\",\"sealed_through\":\"1\u0007\"}"))
        .doesNotContain("\u0007");
    // Jackson quotes the characters of an unknown token as they are
    assertThat(messageOf("{\"target\":tr\u0007\u0008ue}"))
        .contains("\\u0007\\u0008")
        .doesNotContain("\u0007");
    assertThatThrownBy(() -> Keys.parse("zz\u001b[2J/s"))
        .hasMessageContaining("zz\\u001b[2J")
        .message()
        .doesNotContain("\u001b");
    DemandEvent e =
        EventDecoder.decode(
            ("{\"target\":\"t\",\"shard\":\"s\",\"source\":\"writer\"," + TAIL)
                .getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> Keys.requireMatch("74/s\r\nINFO forged line", e))
        .hasMessageContaining("74/s\\u000d\\u000aINFO forged line")
        .message()
        .doesNotContain("\n");
    assertThatThrownBy(
            () ->
                TableJson.decode(
                    "{\"v\":1,\"shards\":{\"s\\u0007\":1}}".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("s\\u0007")
        .message()
        .doesNotContain("\u0007");
  }

  private static String messageOf(String json) {
    try {
      EventDecoder.decode(json.getBytes(StandardCharsets.UTF_8));
    } catch (InvalidEventException x) {
      return x.getMessage();
    }
    throw new AssertionError("accepted " + json);
  }
}
