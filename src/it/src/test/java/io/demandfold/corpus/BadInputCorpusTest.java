package io.demandfold.corpus;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.InvalidEventException;
import io.demandfold.core.Keys;
import io.demandfold.core.codec.EventDecoder;
import io.demandfold.corpus.BadInputs.BadInput;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every kind of the bad-input corpus gets its documented reason from the same checks the pipeline
 * makes, in its order (key bytes, then the value, then key against value), and the corpus README
 * lists every kind with that reason. {@code BadInputIT} sends the corpus through a real pipeline.
 */
class BadInputCorpusTest {

  @Test
  void shouldHoldAtLeastTwentyFiveDistinctKindsOfEveryReason() {
    List<BadInput> corpus = BadInputs.load();
    assertThat(corpus).hasSizeGreaterThanOrEqualTo(25);
    Set<String> kinds = new HashSet<>();
    for (BadInput b : corpus) {
      assertThat(kinds.add(b.kind())).as("kind %s appears once", b.kind()).isTrue();
    }
    assertThat(corpus.stream().map(BadInput::reason).distinct())
        .containsExactlyInAnyOrderElementsOf(
            java.util.Arrays.stream(InvalidEventException.Reason.values())
                // bounds, not malformed input: no event has them alone (DemandTopologyTest)
                .filter(
                    r ->
                        r != InvalidEventException.Reason.TOO_MANY_KEYS
                            && r != InvalidEventException.Reason.TOO_MANY_SHARDS)
                .map(InvalidEventException.Reason::code)
                .toList());
  }

  @Test
  void shouldRejectEveryKindWithItsDocumentedReason() {
    for (BadInput b : BadInputs.load()) {
      assertThat(reasonOf(b)).as(b.kind()).isEqualTo(b.reason());
    }
  }

  @Test
  void shouldListEveryKindWithItsReasonInTheCorpusReadme() throws Exception {
    String readme = Files.readString(Path.of("src/it/src/test/resources/bad-inputs/README.md"));
    for (BadInput b : BadInputs.load()) {
      assertThat(readme).contains("| `" + b.kind() + "` | `" + b.reason() + "` |");
    }
  }

  /** The reason the pipeline gives {@code b}, or "folded". */
  static String reasonOf(BadInput b) {
    try {
      if (b.key() == null) {
        return InvalidEventException.Reason.NULL_KEY.code();
      }
      String key;
      try {
        key =
            StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(b.key()))
                .toString();
      } catch (CharacterCodingException e) {
        return InvalidEventException.Reason.INVALID_KEY.code();
      }
      DemandEvent e = EventDecoder.decode(b.value());
      Keys.requireMatch(key, e);
      return "folded";
    } catch (InvalidEventException e) {
      return e.reason().code();
    }
  }
}
