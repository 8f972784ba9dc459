package io.demandfold.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.common.utils.Utils;

/** {@link Keys#partition} is where Kafka's default partitioner puts a key. */
class KeysPartitionTest {

  @Property(tries = 2000)
  void shouldPartitionLikeKafkasDefaultPartitioner(
      @ForAll String target, @ForAll String shard, @ForAll @IntRange(min = 1, max = 64) int n) {
    String key = Keys.hex(target) + "/" + shard;
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    assertThat(Keys.partition(key, n)).isEqualTo(Utils.toPositive(Utils.murmur2(bytes)) % n);
  }
}
