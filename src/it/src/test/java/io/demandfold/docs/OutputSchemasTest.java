package io.demandfold.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import io.demandfold.core.Keys;
import io.demandfold.core.SealedTimes;
import io.demandfold.core.ShardRecord;
import io.demandfold.core.Source;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.core.codec.ViewJson;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The schemas of the output topics are valid JSON Schemas, accept every line the fold writes, and
 * refuse lines that break the documented format.
 */
class OutputSchemasTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void shouldBeValidDraft202012Schemas() throws Exception {
    SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    Schema meta =
        registry.getSchema(SchemaLocation.of("https://json-schema.org/draft/2020-12/schema"));
    assertThat(meta.validate(JSON.readTree("{\"type\":5}"))).isNotEmpty();
    for (OutputSchemas s : OutputSchemas.values()) {
      JsonNode schema = JSON.readTree(s.file().toFile());
      assertThat(meta.validate(schema)).as(s.file().toString()).isEmpty();
      assertThat(schema.get("$schema").asText())
          .isEqualTo("https://json-schema.org/draft/2020-12/schema");
    }
  }

  @Test
  void shouldAcceptEveryLineAndKeyOfTheFoldOfTheNamedCases() throws Exception {
    Fold fold = new Fold();
    for (String line : Files.readAllLines(Path.of("examples/named-cases.jsonl"))) {
      fold.add(JsonCodec.decodeEvent(line.getBytes(StandardCharsets.UTF_8)));
    }
    fold.add(largest());
    int lines = 0;
    for (var t : fold.targets().entrySet()) {
      for (ShardRecord r : t.getValue().values()) {
        String line = ViewJson.shardLine(t.getKey(), r);
        assertThat(OutputSchemas.SHARD_LINE.errors(line)).as(line).isEmpty();
        String key = Keys.shardKey(t.getKey(), r.shard());
        assertThat(OutputSchemas.SHARD_KEY.errors(key)).as(key).isEmpty();
        lines++;
      }
      String line = ViewJson.tableLine(t.getKey(), fold.table(t.getKey()));
      assertThat(OutputSchemas.TABLE_LINE.errors(line)).as(line).isEmpty();
      assertThat(OutputSchemas.TABLE_KEY.errors(Keys.hex(t.getKey()))).isEmpty();
    }
    assertThat(lines).isGreaterThan(10);
  }

  @Test
  void shouldRefuseShardLinesThatBreakTheFormat() {
    String good = ViewJson.shardLine("orders", largest().record());
    assertThat(OutputSchemas.SHARD_LINE.errors(good)).isEmpty();
    for (String bad :
        List.of(
            good.replace("\"kind\":\"shard\"", "\"kind\":\"table\""),
            good.replace("\"pending_generations\":", "\"pending\":"),
            good.replace("}", ",\"extra\":1}"),
            good.replace("\"source\":\"writer\"", "\"source\":\"planner\""),
            good.replace(
                "\"oldest_pending_bound\":\"exact\"", "\"oldest_pending_bound\":\"maybe\""),
            good.replace("\"v\":1", "\"v\":2"),
            good.replace("\"sealed_through\":9223372036854775807", "\"sealed_through\":-1"),
            good.replace(
                "\"sealed_through\":9223372036854775807", "\"sealed_through\":9223372036854775808"),
            good.replace("\"merged_through\":9223372036854775806", "\"merged_through\":\"1\""),
            good.replace("\"9223372036854775807\":", "\"09223372036854775807\":"),
            good.replace("\"key\":\"", "\"key\":\"x"),
            "{\"kind\":\"shard\"}",
            "not json")) {
      assertThat(bad).isNotEqualTo(good);
      assertThat(OutputSchemas.SHARD_LINE.errors(bad)).as(bad).isNotEmpty();
    }
  }

  @Test
  void shouldRefuseTableLinesAndKeysThatBreakTheFormat() {
    String good =
        "{\"kind\":\"table\",\"target\":\"orders\",\"pending_generations\":2,\"pending_bytes\":10,"
            + "\"oldest_pending_ms\":null,\"oldest_pending_exact_ms\":null,\"shards\":1}";
    assertThat(OutputSchemas.TABLE_LINE.errors(good)).isEmpty();
    for (String bad :
        List.of(
            good.replace(",\"shards\":1", ""),
            good.replace("\"shards\":1", "\"shards\":0"),
            good.replace("\"pending_bytes\":10", "\"pending_bytes\":1.5"),
            good.replace("\"target\":\"orders\"", "\"target\":\"\""),
            good.replace("\"oldest_pending_ms\":null", "\"oldest_pending_ms\":\"soon\""))) {
      assertThat(OutputSchemas.TABLE_LINE.errors(bad)).as(bad).isNotEmpty();
    }
    for (String bad : List.of("6F72", "6f7", "6f72/", "/s", "6f72")) {
      assertThat(OutputSchemas.SHARD_KEY.errors(bad)).as(bad).isNotEmpty();
    }
    for (String bad : List.of("6F72", "6f7", "6f72/s", "")) {
      assertThat(OutputSchemas.TABLE_KEY.errors(bad)).as(bad).isNotEmpty();
    }
    assertThat(OutputSchemas.SHARD_KEY.errors(Keys.shardKey("orders", "a/b"))).isEmpty();
  }

  /** An event with every field at its largest: 64 flush times, the highest generations. */
  private static DemandEvent largest() {
    long max = Long.MAX_VALUE;
    SealedTimes.Builder times = new SealedTimes.Builder();
    for (int below = 63; below >= 0; below--) {
      times.put(max - below, max);
    }
    return new DemandEvent(
        "orders",
        ShardRecord.builder("s")
            .sealedThrough(max)
            .sealedBytesThrough(max)
            .mergedThrough(max - 1)
            .mergedEpoch(max)
            .writerEpoch(max)
            .flushedAtMs(max)
            .source(Source.WRITER)
            .sealedTimes(times.build())
            .build());
  }
}
