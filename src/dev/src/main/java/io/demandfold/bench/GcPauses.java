package io.demandfold.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The garbage collections of this JVM while it is open: how many, their longest and their total
 * time. The bench runs the pipeline in its own JVM, so its collections stop the pipeline too.
 */
final class GcPauses implements AutoCloseable {
  private final List<NotificationEmitter> emitters = new ArrayList<>();
  private final NotificationListener listener;
  private long count;
  private long maxMs;
  private long totalMs;

  GcPauses() {
    listener =
        (n, handback) -> {
          if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
              n.getType())) {
            return;
          }
          GarbageCollectionNotificationInfo info =
              GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
          if (info.getGcAction().contains("concurrent")
              || info.getGcName().contains("Concurrent")) {
            return; // runs beside the application, not a pause
          }
          long ms = info.getGcInfo().getDuration();
          synchronized (this) {
            count++;
            maxMs = Math.max(maxMs, ms);
            totalMs += ms;
          }
        };
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter e) {
        e.addNotificationListener(listener, null, null);
        emitters.add(e);
      }
    }
  }

  /** {count, longest ms, total ms} since the last call, and starts counting afresh. */
  synchronized long[] take() {
    long[] out = {count, maxMs, totalMs};
    count = 0;
    maxMs = 0;
    totalMs = 0;
    return out;
  }

  @Override
  public void close() {
    for (NotificationEmitter e : emitters) {
      try {
        e.removeNotificationListener(listener);
      } catch (javax.management.ListenerNotFoundException x) {
        // already gone
      }
    }
  }
}
