package io.demandfold.mirror;

import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * One key on its way into etcd: its name, what the mirror knows of its value, what it decided to
 * write, and its outcome once settled.
 *
 * @param <R> what the key holds: a shard or a table record
 */
final class KeyCall<R> {
  /** Decides what to write to the key given what etcd holds ({@code null}: absent). */
  @FunctionalInterface
  interface Decider<R> {
    Decision<R> decide(KnownValues.Value current);
  }

  /**
   * The full etcd key, {@code <prefix>/demand-events/<hex>/<shard>} or {@code
   * <prefix>/demand/<hex>}.
   */
  final String etcdKey;

  /** What {@link #etcdKey} holds, the {@code kind} its requests are counted under. */
  final RecordKind kind;

  /** {@link #etcdKey} in UTF-8, as requests carry it. */
  final ByteSequence etcdKeyBytes;

  final Decider<R> decider;
  final CompletableFuture<MirrorOutcome> outcome = new CompletableFuture<>();

  /** What etcd holds, as last read or remembered; {@code null}: absent. */
  KnownValues.Value current;

  /** What to write, decided from {@link #current}. */
  Decision<R> decision;

  KeyCall(RecordKind kind, String etcdKey, Decider<R> decider) {
    this.kind = kind;
    this.etcdKey = etcdKey;
    this.etcdKeyBytes = ByteSequence.from(etcdKey, StandardCharsets.UTF_8);
    this.decider = decider;
  }

  /** Completes {@link #outcome} with {@code o}, or with {@code e} when it is not {@code null}. */
  void settle(MirrorOutcome o, Throwable e) {
    if (e != null) {
      outcome.completeExceptionally(e);
    } else {
      outcome.complete(o);
    }
  }
}
