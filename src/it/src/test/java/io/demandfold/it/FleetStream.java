package io.demandfold.it;

import io.demandfold.core.DemandEvent;
import io.demandfold.core.Fold;
import io.demandfold.core.codec.AvroCodec;
import io.demandfold.core.codec.JsonCodec;
import io.demandfold.corpus.BadInputs;
import io.demandfold.corpus.BadInputs.BadInput;
import io.demandfold.sim.FleetModel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/** A fleet's events with bad records mixed in, one in {@code badEvery}. */
final class FleetStream {
  final List<DemandEvent> valid = new ArrayList<>();
  final List<BadInput> bad = new ArrayList<>();

  /** The records in order: a DemandEvent or a BadInput each. */
  final List<Object> records = new ArrayList<>();

  static FleetStream of(Random rnd, int events, int targets, int shards, int badEvery) {
    FleetStream s = new FleetStream();
    FleetModel fleet = new FleetModel(rnd.nextLong(), targets, shards);
    List<BadInput> kinds = BadInputs.small(2048);
    long now = 1_764_400_000_000L;
    for (int i = 0; i < events; i++) {
      now += 1 + rnd.nextInt(9);
      DemandEvent e = fleet.next(now);
      s.valid.add(e);
      s.records.add(e);
      if (i % badEvery == badEvery - 1) {
        BadInput b = kinds.get(s.bad.size() % kinds.size());
        s.bad.add(b);
        s.records.add(b);
      }
    }
    return s;
  }

  Fold fold() {
    return Harness.fold(valid);
  }

  /** Produces every record at about {@code perSecond}, checking every send, on another thread. */
  CompletableFuture<Void> produceAsync(Harness h, Random rnd, int perSecond) {
    Random own = new Random(rnd.nextLong());
    return CompletableFuture.runAsync(
        () -> {
          try {
            long t0 = System.nanoTime();
            int n = 0;
            for (Object r : records) {
              if (r instanceof DemandEvent e) {
                byte[] value =
                    own.nextBoolean() ? JsonCodec.encodeEvent(e) : AvroCodec.encodeEvent(e);
                h.produceRaw(e.key().getBytes(StandardCharsets.UTF_8), value);
              } else {
                BadInput b = (BadInput) r;
                h.produceRaw(b.key(), b.value());
              }
              if (++n % 2000 == 0) {
                h.flush();
                long due = t0 + (long) (n * 1e9 / perSecond);
                long wait = due - System.nanoTime();
                if (wait > 0) {
                  Thread.sleep(wait / 1_000_000);
                }
              }
            }
            h.flush();
          } catch (Exception e) {
            throw new IllegalStateException("producing failed", e);
          }
        },
        task -> {
          Thread t = new Thread(task, "fleet-stream-producer");
          t.setDaemon(true);
          t.start();
        });
  }
}
