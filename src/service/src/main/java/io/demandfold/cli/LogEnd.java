package io.demandfold.cli;

import io.demandfold.ops.LogReplay;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Where a read of the events log ends: at the end offsets of now, at offsets from a file ({@code
 * --until-offsets FILE}), or at the offsets of a time ({@code --as-of TIME}).
 */
final class LogEnd {
  /** The accepted forms of a time, for messages. */
  static final String TIME_FORMS =
      "an ISO-8601 instant (e.g. 2026-11-29T10:00:00Z or 2026-11-29T11:00:00+01:00)"
          + " or epoch milliseconds (e.g. 1795946400000)";

  private final String offsetsFile;
  private final Long asOfMs;

  private LogEnd(String offsetsFile, Long asOfMs) {
    this.offsetsFile = offsetsFile;
    this.asOfMs = asOfMs;
  }

  static LogEnd now() {
    return new LogEnd(null, null);
  }

  /** Up to the offsets of a JSON file of partition to offset, or now for {@code "now"}. */
  static LogEnd offsets(String spec) {
    return spec == null || spec.equals("now") ? now() : new LogEnd(spec, null);
  }

  static LogEnd asOf(long timestampMs) {
    return new LogEnd(null, timestampMs);
  }

  /**
   * Parses a time given to {@code flag}: an ISO-8601 instant (with {@code Z} or an offset) or epoch
   * milliseconds.
   *
   * @throws IllegalArgumentException naming the flag and the accepted forms
   */
  static long parseTime(String flag, String text) {
    String t = text.strip();
    if (!t.isEmpty() && t.chars().allMatch(Character::isDigit)) {
      try {
        return Long.parseLong(t);
      } catch (NumberFormatException e) {
        // too many digits: reported below
      }
    } else {
      try {
        return DateTimeFormatter.ISO_INSTANT.parse(t, Instant::from).toEpochMilli();
      } catch (DateTimeException | ArithmeticException e) {
        // reported below
      }
    }
    throw new IllegalArgumentException(flag + ": '" + text + "' is not a time; give " + TIME_FORMS);
  }

  /** The time this read is as of, or null. */
  Long asOfMs() {
    return asOfMs;
  }

  /** The end offset of every partition of {@code topic} to read up to (exclusive). */
  Map<TopicPartition, Long> resolve(LogReplay replay, String topic) throws IOException {
    if (asOfMs != null) {
      return replay.offsetsAt(asOfMs);
    }
    if (offsetsFile != null) {
      return OpsOptions.untilOffsets(offsetsFile, topic);
    }
    return replay.endOffsets();
  }

  /** How the summary names this end: {@code as of 2026-11-29T10:00:00Z} or nothing. */
  String describe() {
    return asOfMs == null ? "" : "as of " + Instant.ofEpochMilli(asOfMs);
  }
}
