package io.demandfold.bench;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import io.demandfold.core.Keys;
import io.demandfold.core.ShardRecord;
import io.demandfold.sim.FleetModel;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Offers events at a fixed rate, folding each into the offline fold as it goes; {@link #kill} runs
 * an action between two events, with the fold of every event sent before it.
 */
final class SteadyProducer extends Thread {
  private final ReentrantLock lock = new ReentrantLock();
  private final FleetModel model;
  private final Fold fold;
  private final long clock;
  private final int rate;
  private final long seconds;
  private final String topic;
  private final String bootstrap;
  private final AtomicReference<Exception> failure = new AtomicReference<>();
  private volatile long lastSent;

  /** The moment of a kill and the fold of the events sent before it, by shard key. */
  record Kill(long nanos, Map<String, ShardRecord> sent) {}

  SteadyProducer(
      FleetModel model,
      Fold fold,
      long clock,
      int rate,
      long seconds,
      String topic,
      String bootstrap) {
    super("bench-scale-producer");
    setDaemon(true);
    this.model = model;
    this.fold = fold;
    this.clock = clock;
    this.rate = rate;
    this.seconds = seconds;
    this.topic = topic;
    this.bootstrap = bootstrap;
  }

  @Override
  public void run() {
    try {
      produce();
    } catch (RuntimeException e) {
      failure.compareAndSet(null, e);
    }
  }

  private void produce() {
    try (KafkaProducer<byte[], byte[]> producer = EventLog.producer(bootstrap, 5)) {
      long total = rate * seconds;
      long interval = 1_000_000_000L / rate;
      long t0 = System.nanoTime();
      for (long i = 0; i < total && !isInterrupted(); i++) {
        long wait = t0 + i * interval - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        }
        lock.lock();
        try {
          DemandEvent e = model.next(EventLog.START_MS + clock + i);
          fold.add(e);
          producer.send(
              EventLog.record(topic, e, clock + i),
              (m, x) -> {
                if (x != null) {
                  failure.compareAndSet(null, x);
                }
              });
        } finally {
          lock.unlock();
        }
      }
      producer.flush();
      lastSent = System.nanoTime();
    }
  }

  Kill kill(Runnable action) {
    lock.lock();
    try {
      Map<String, ShardRecord> sent = new HashMap<>();
      for (var t : fold.targets().entrySet()) {
        for (ShardRecord r : t.getValue().values()) {
          sent.put(Keys.shardKey(t.getKey(), r.shard()), r);
        }
      }
      long nanos = System.nanoTime();
      action.run();
      return new Kill(nanos, sent);
    } finally {
      lock.unlock();
    }
  }

  /** When the last event was flushed to the broker. */
  long lastSentNanos() {
    if (failure.get() != null) {
      throw new IllegalStateException("producing the steady events failed", failure.get());
    }
    return lastSent;
  }
}
