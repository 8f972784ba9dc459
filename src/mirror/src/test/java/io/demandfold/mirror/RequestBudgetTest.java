package io.demandfold.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How writes are split into transactions within etcd's request limit. */
class RequestBudgetTest {
  /** A write of a key of {@code key} bytes and a value of {@code value} bytes. */
  private record Write(String name, int key, int value) {}

  private static List<List<Write>> split(RequestBudget budget, List<Write> writes) {
    return budget.split(writes, Write::key, Write::value);
  }

  /** What a transaction of {@code batch} carries, by the budget's estimate. */
  private static long bytes(List<Write> batch) {
    long n = RequestBudget.REQUEST_FRAMING_BYTES;
    for (Write w : batch) {
      n += RequestBudget.writeBytes(w.key(), w.value());
    }
    return n;
  }

  private static List<Write> writes(int n, int value) {
    List<Write> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new Write("w" + i, 40, value));
    }
    return out;
  }

  @Test
  void shouldSplitWritesIntoTransactionsWithinTheLimit() {
    RequestBudget budget = new RequestBudget(16_384);
    // 1,170 bytes a write: 14 fit the limit without the framing, 13 with it
    List<Write> writes = writes(50, 986);
    assertThat(RequestBudget.writeBytes(40, 986)).isEqualTo(1170);

    List<List<Write>> batches = split(budget, writes);

    assertThat(batches).hasSizeGreaterThan(1);
    for (List<Write> batch : batches) {
      assertThat(bytes(batch)).as("%s", batch).isLessThanOrEqualTo(16_384);
    }
    // full batches: the next write would not have fitted
    for (int i = 0; i < batches.size() - 1; i++) {
      List<Write> grown = new ArrayList<>(batches.get(i));
      grown.add(batches.get(i + 1).get(0));
      assertThat(bytes(grown)).isGreaterThan(16_384);
    }
  }

  @Test
  void shouldKeepTheOrderOfTheWrites() {
    List<Write> writes = writes(50, 1000);

    List<Write> flattened =
        split(new RequestBudget(16_384), writes).stream().flatMap(List::stream).toList();

    assertThat(flattened).containsExactlyElementsOf(writes);
  }

  @Test
  void shouldSendAWriteTooLargeForTheLimitAlone() {
    Write small = new Write("small", 40, 100);
    Write huge = new Write("huge", 40, 20_000);
    Write after = new Write("after", 40, 100);

    List<List<Write>> batches =
        split(new RequestBudget(16_384), List.of(small, huge, after, small));

    assertThat(batches).containsExactly(List.of(small), List.of(huge), List.of(after, small));
  }

  @Test
  void shouldSplitNothingIntoNoTransaction() {
    assertThat(split(new RequestBudget(16_384), List.of())).isEmpty();
  }

  @Test
  void shouldLeaveAOneKeyValueTheLimitLessThreeCopiesOfTheKeyAndTheFraming() {
    RequestBudget budget = new RequestBudget(10_000);
    String key = "/df/demand/" + "é".repeat(10);
    int keyBytes = 11 + 2 * 10;

    assertThat(budget.valueBytes(key))
        .isEqualTo(10_000 - 3 * keyBytes - RequestBudget.REQUEST_FRAMING_BYTES);
  }
}
