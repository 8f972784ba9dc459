package io.demandfold.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.common.utils.Utils;

/**
 * {@link Keys#partition} is where Kafka's default partitioner puts a key; {@link Keys#UTF8_ORDER}
 * is the order of the UTF-8 bytes.
 */
class KeysPartitionTest {

  @Property(tries = 2000)
  void shouldPartitionLikeKafkasDefaultPartitioner(
      @ForAll String target, @ForAll String shard, @ForAll @IntRange(min = 1, max = 64) int n) {
    String key = Keys.hex(target) + "/" + shard;
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    assertThat(Keys.partition(key, n)).isEqualTo(Utils.toPositive(Utils.murmur2(bytes)) % n);
  }

  @Property(tries = 5000)
  void shouldOrderLikeTheUtf8BytesOfValidText(@ForAll String a, @ForAll String b) {
    net.jqwik.api.Assume.that(Utf8.loneSurrogate(a) < 0 && Utf8.loneSurrogate(b) < 0);
    int bytes =
        java.util.Arrays.compareUnsigned(
            a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    assertThat(Integer.signum(Keys.UTF8_ORDER.compare(a, b))).isEqualTo(Integer.signum(bytes));
  }
}
