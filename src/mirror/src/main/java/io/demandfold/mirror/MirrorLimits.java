package io.demandfold.mirror;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.AIMDLimit;
import com.netflix.concurrency.limits.limit.FixedLimit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The concurrency limits the {@link LiveMirror} can adapt its etcd calls in flight with (Netflix
 * concurrency-limits), by the names of the setting {@code mirror.limit}:
 *
 * <ul>
 *   <li>{@code vegas}: TCP Vegas; the limit grows while a call takes about the shortest time seen
 *       (etcd answers without queueing) and shrinks as calls take longer or time out;
 *   <li>{@code gradient2}: grows while the recent round trip stays within twice its long-term
 *       average, shrinks by their ratio beyond it;
 *   <li>{@code aimd}: grows by one per call, halves on a timeout or a call slower than 1 s;
 *   <li>{@code fixed}: always the maximum (the pipeline before the adaptive mirror).
 * </ul>
 */
public final class MirrorLimits {
  /** The names {@link #of} takes. */
  public static final List<String> NAMES = List.of("vegas", "gradient2", "aimd", "fixed");

  private MirrorLimits() {}

  /**
   * A limit of the kind {@code name}, starting at a few calls and never above {@code max}.
   *
   * @throws IllegalArgumentException for a name not in {@link #NAMES}
   */
  public static Limit of(String name, int max) {
    int initial = Math.min(4, max);
    return switch (name) {
      case "vegas" -> VegasLimit.newBuilder().initialLimit(initial).maxConcurrency(max).build();
      case "gradient2" ->
          Gradient2Limit.newBuilder()
              .initialLimit(initial)
              .minLimit(1)
              .maxConcurrency(max)
              .queueSize(2)
              .rttTolerance(2.0)
              .longWindow(100)
              .build();
      case "aimd" ->
          AIMDLimit.newBuilder()
              .initialLimit(initial)
              .minLimit(1)
              .maxLimit(max)
              .backoffRatio(0.5)
              .timeout(1, TimeUnit.SECONDS)
              .build();
      case "fixed" -> FixedLimit.of(max);
      default ->
          throw new IllegalArgumentException(
              "unknown concurrency limit '" + name + "'; one of " + String.join(", ", NAMES));
    };
  }
}
