package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.demandfold.app.DemandfoldService;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Events;
import io.demandfold.core.Keys;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.JsonCodec;
import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Control characters in targets, shard ids, keys and values (valid Unicode names may hold them)
 * reach neither the log nor what {@code audit} and {@code inspect} print as they are: each is
 * escaped, so a name cannot clear the terminal, colour it or forge a log line.
 */
@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ControlCharactersIT {
  private static final String TARGET = "t\r\nERROR forged line";
  private static final String SHARD = "s\u001b[31m\u0007";
  private static final String BAD_KEY = "zz\u001b[2J/s";

  @Test
  void shouldEscapeControlCharactersInLogsAuditAndInspect(Services services) throws Exception {
    try (Harness h = new Harness(services, "ctrl");
        LogCapture logs = new LogCapture()) {
      String shardKey = h.layout().shardKey(Keys.shardKey(TARGET, SHARD));
      // an unreadable record at the shard's key: the mirror replaces it, and says so in the log
      put(services, shardKey, "unreadable\u0007");
      DemandfoldService s = h.start();
      List<DemandEvent> valid = new ArrayList<>();
      for (int g = 1; g <= 4; g++) {
        DemandEvent e = new DemandEvent(TARGET, Events.writer(SHARD, g, 1, 1_764_400_000_000L + g));
        valid.add(e);
        h.produceRaw(
            e.key().getBytes(StandardCharsets.UTF_8),
            g % 2 == 0 ? JsonCodec.encodeEvent(e) : AvroCodec.encodeEvent(e));
      }
      h.produceRaw(BAD_KEY.getBytes(StandardCharsets.UTF_8), JsonCodec.encodeEvent(valid.get(0)));
      h.flush();
      h.awaitEtcd(Harness.fold(valid));
      long dead =
          Harness.await(
              "the dead letter", () -> s.metrics().dlqTotal(), n -> n >= 1, Harness.PATIENCE);
      assertThat(dead).as("dead letters").isEqualTo(1);
      List<ConsumerRecord<byte[], byte[]>> dlq = services.readAll(h.name + ".dlq");
      assertThat(dlq).hasSize(1);
      assertThat(dlq.get(0).key()).isEqualTo(BAD_KEY.getBytes(StandardCharsets.UTF_8));
      assertThat(Faults.header(dlq.get(0), "demandfold.dlq.message"))
          .isEqualTo("'zz\\u001b[2J' is not lowercase hex of a target");
      assertThat(s.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);

      // a key and a value another writer put there
      String extraKey = h.layout().shardKey(Keys.shardKey("x\u0007", "y\u001b]0;title\u0007"));
      put(services, extraKey, "{\"v\":1,\"shard\":\"\u009b2J\"}\u0008");
      Cli audit = cli(h, "audit");
      assertThat(audit.exit()).as(audit.out() + audit.err()).isEqualTo(1);
      assertThat(audit.out())
          .contains("extra     " + h.prefix + "/demand-events/7807/y\\u001b]0;title\\u0007")
          .contains("  actual:   {\"v\":1,\"shard\":\"\\u009b2J\"}\\u0008")
          .contains("audit: DIVERGENT");
      assertPrintable("audit", audit.out() + audit.err());

      Cli inspect = cli(h, "inspect", "--target", TARGET);
      assertThat(inspect.exit()).as(inspect.err()).isZero();
      assertThat(inspect.out()).contains("s\\u001b[31m\\u0007");
      assertPrintable("inspect", inspect.out() + inspect.err());

      h.stop(s);
      String log = logs.text();
      assertThat(log)
          .as("the mirror's line about the record it replaced")
          .contains(
              "at "
                  + h.prefix
                  + "/demand-events/"
                  + Keys.hex(TARGET)
                  + "/s\\u001b[31m\\u0007: malformed JSON");
      assertThat(log).doesNotContain("\u001b").doesNotContain("\u0007").doesNotContain("\r\n");
    }
  }

  /** Only line ends and visible characters. */
  private static void assertPrintable(String what, String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      assertThat(c == '\n' || (c >= 0x20 && c != 0x7f && !(c >= 0x80 && c <= 0x9f)))
          .as("%s prints character %04x at %d: %s", what, (int) c, i, text)
          .isTrue();
    }
  }

  private static void put(Services services, String key, String value) throws Exception {
    services
        .etcdClient()
        .getKVClient()
        .put(
            ByteSequence.from(key, StandardCharsets.UTF_8),
            ByteSequence.from(value, StandardCharsets.UTF_8))
        .get(10, TimeUnit.SECONDS);
  }

  private static Cli cli(Harness h, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(
        List.of(
            "--bootstrap-servers",
            h.services.bootstrapServers(),
            "--etcd-endpoints",
            h.services.etcdEndpoint(),
            "--set",
            "topics.events=" + h.eventsTopic,
            "--prefix",
            h.prefix));
    return Cli.run(all);
  }
}
