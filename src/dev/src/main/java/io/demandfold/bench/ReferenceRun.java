package io.demandfold.bench;

import io.demandfold.config.DemandfoldConfig;
import io.demandfold.core.DemandEvent;
import io.demandfold.mirror.EtcdMirror;
import io.demandfold.mirror.MirrorMetrics;
import io.demandfold.sim.FleetModel;
import io.etcd.jetcd.Client;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * (c) The reference approach on the same stream: every event written straight to etcd by its
 * publisher with a read-join-CAS, from several concurrent publishers like a fleet of writers.
 */
final class ReferenceRun {
  private ReferenceRun() {}

  /** Figures of a reference run; {@code etcdRewinds}: how often its mirror saw etcd lose writes. */
  record Result(long events, double seconds, long etcdRequests, long etcdRewinds) {}

  static Result run(BenchSettings s, Client etcd, String prefix) throws InterruptedException {
    FleetModel model = EventLog.model(s);
    AtomicLong next = new AtomicLong();
    AtomicLong done = new AtomicLong();
    MirrorMetrics metrics = MirrorMetrics.detached();
    // the pipeline's defaults (retries, request timeout and limit), without a value cache
    EtcdMirror mirror =
        new DemandfoldConfig(Map.of(DemandfoldConfig.ETCD_PREFIX, prefix))
            .mirror(etcd.getKVClient(), metrics, 0);
    long deadline = System.nanoTime() + s.referenceDuration().toNanos();
    List<Thread> publishers = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int p = 0; p < s.referencePublishers(); p++) {
      Thread t =
          new Thread(
              () -> {
                while (System.nanoTime() < deadline) {
                  DemandEvent e;
                  synchronized (model) {
                    e = model.next(EventLog.START_MS + next.getAndIncrement());
                  }
                  mirror.mirrorShard(e.key(), e.record()).join();
                  done.incrementAndGet();
                }
              },
              "reference-publisher-" + p);
      publishers.add(t);
      t.start();
    }
    for (Thread t : publishers) {
      t.join();
    }
    return new Result(
        done.get(), (System.nanoTime() - t0) / 1e9, metrics.etcdRequests(), metrics.rewinds());
  }
}
