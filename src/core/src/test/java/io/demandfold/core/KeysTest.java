package io.demandfold.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeysTest {
  @Test
  void shouldHexTheUtf8BytesOfTheTarget() {
    assertThat(Keys.hex("orders")).isEqualTo("6f7264657273");
    assertThat(Keys.hex("é")).isEqualTo("c3a9");
    assertThat(Keys.shardKey("orders", "u-1")).isEqualTo("6f7264657273/u-1");
    assertThat(Keys.unhex("c3a9")).isEqualTo("é");
  }

  @Test
  void shouldParseKeysWhoseShardContainsSlashes() {
    assertThat(Keys.parse("6f7264657273/a/b")).isEqualTo(new Keys.ShardKey("orders", "a/b"));
  }

  @Test
  void shouldRejectMalformedKeys() {
    assertThatThrownBy(() -> Keys.parse("nohex"))
        .hasMessageContaining("is not <hex(target)>/<shard>");
    assertThatThrownBy(() -> Keys.parse("6f72/"))
        .hasMessageContaining("is not <hex(target)>/<shard>");
    assertThatThrownBy(() -> Keys.parse("6F72/s")).hasMessageContaining("not lowercase hex");
    assertThatThrownBy(() -> Keys.parse("6f7/s")).hasMessageContaining("not lowercase hex");
    assertThatThrownBy(() -> Keys.parse("ff/s")).hasMessageContaining("not the hex of UTF-8");
  }

  @Test
  void shouldOrderLikeEtcdKeys() {
    List<String> targets = new ArrayList<>(List.of("b", "ab", "a", "\uD83D\uDE00", "\uFFFD"));
    targets.sort(Keys.UTF8_ORDER);
    List<String> hexes = new ArrayList<>();
    targets.forEach(t -> hexes.add(Keys.hex(t) + "/"));
    List<String> sorted = new ArrayList<>(hexes);
    sorted.sort(String::compareTo);
    assertThat(hexes).isEqualTo(sorted);
    assertThat(targets).startsWith("a", "ab", "b");
  }
}
