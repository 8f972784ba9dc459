package io.demandfold.bench;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.mirror.EtcdLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoreSizesTest {
  @Test
  void shouldCountShardAndTableKeysAndBytesUnderThePrefixOnly() {
    EtcdLayout layout = new EtcdLayout("/p");
    Map<String, byte[]> values = new TreeMap<>();
    values.put("/p/demand-events/7461/s-1", new byte[100]); // 25 key bytes
    values.put("/p/demand-events/7461/s-2", new byte[300]);
    values.put("/p/demand/7461", new byte[1000]); // 14 key bytes
    values.put("/p/other", new byte[5000]);

    StoreSizes.Etcd e = StoreSizes.etcd(values, layout);

    assertThat(e).isEqualTo(new StoreSizes.Etcd(2, 50, 400, 1, 14, 1000));
    assertThat(e.keys()).isEqualTo(3);
    assertThat(e.bytes()).isEqualTo(1464);
  }

  @Test
  void shouldKeepTheLastRecordOfEachKeyAndDropTombstones() {
    StoreSizes.Live live = new StoreSizes.Live();
    live.add("a".getBytes(UTF_8), new byte[10]);
    live.add("b".getBytes(UTF_8), new byte[20]);
    live.add("a".getBytes(UTF_8), new byte[30]);
    live.add("b".getBytes(UTF_8), null);
    live.add("c".getBytes(UTF_8), null);
    live.add(null, new byte[99]);

    assertThat(live.keys()).isEqualTo(1);
    assertThat(live.bytes()).isEqualTo(31);
  }

  @Test
  void shouldSumTheFilesOfADirectory(@TempDir Path dir) throws Exception {
    Files.write(dir.resolve("a"), new byte[7]);
    Files.createDirectories(dir.resolve("x/y"));
    Files.write(dir.resolve("x/y/b"), new byte[5]);

    assertThat(StoreSizes.directoryBytes(dir)).isEqualTo(12);
    assertThat(StoreSizes.directoryBytes(dir.resolve("missing"))).isZero();
  }
}
