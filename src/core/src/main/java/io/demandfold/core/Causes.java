package io.demandfold.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The cause chain of a failure: the failure itself, its cause, the cause's cause and so on. A cause
 * met before ends the chain, so a cyclic chain does not loop.
 */
public final class Causes {
  private Causes() {}

  /** {@code e} and its causes, outermost first; empty when {@code e} is null. */
  public static List<Throwable> chain(Throwable e) {
    List<Throwable> out = new ArrayList<>(4);
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
      out.add(t);
    }
    return out;
  }

  /** The first of {@code e} and its causes that is a {@code type}, or {@code null}. */
  public static <T extends Throwable> T find(Throwable e, Class<T> type) {
    for (Throwable t : chain(e)) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }

  /** Whether {@code e} or one of its causes matches {@code test}. */
  public static boolean any(Throwable e, Predicate<Throwable> test) {
    return chain(e).stream().anyMatch(test);
  }

  /** Whether the message of {@code e} or of one of its causes contains {@code text}. */
  public static boolean anyMessageContains(Throwable e, String text) {
    return any(e, t -> t.getMessage() != null && t.getMessage().contains(text));
  }

  /** The innermost cause of {@code e} ({@code e} itself when it has none). */
  public static Throwable root(Throwable e) {
    List<Throwable> all = chain(e);
    return all.get(all.size() - 1);
  }
}
