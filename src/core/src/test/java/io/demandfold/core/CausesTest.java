package io.demandfold.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class CausesTest {

  @Test
  void shouldListAFailureAndItsCausesOutermostFirst() {
    IOException root = new IOException("disk");
    IllegalStateException middle = new IllegalStateException("middle", root);
    ExecutionException outer = new ExecutionException(middle);

    assertThat(Causes.chain(outer)).containsExactly(outer, middle, root);
    assertThat(Causes.root(outer)).isSameAs(root);
    assertThat(Causes.root(root)).isSameAs(root);
    assertThat(Causes.chain(null)).isEmpty();
  }

  @Test
  void shouldFindTheOutermostCauseOfAType() {
    InvalidEventException inner =
        new InvalidEventException(InvalidEventException.Reason.UNDECODABLE, "inner");
    RuntimeException wrapped = new RuntimeException(new RuntimeException(inner));

    assertThat(Causes.find(wrapped, InvalidEventException.class)).isSameAs(inner);
    assertThat(Causes.find(wrapped, IOException.class)).isNull();
    assertThat(Causes.anyMessageContains(wrapped, "inn")).isTrue();
    assertThat(Causes.anyMessageContains(wrapped, "outer")).isFalse();
  }

  @Test
  void shouldEndACyclicChainAtTheFirstRepeat() {
    Looping a = new Looping("a");
    Looping b = new Looping("b");
    a.next = b;
    b.next = a;

    assertThat(Causes.chain(a)).containsExactly(a, b);
    assertThat(Causes.find(a, IOException.class)).isNull();
  }

  /** A failure whose cause can be made to point back at it. */
  private static final class Looping extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private transient Throwable next;

    Looping(String message) {
      super(message);
    }

    @Override
    public synchronized Throwable getCause() {
      return next;
    }
  }
}
