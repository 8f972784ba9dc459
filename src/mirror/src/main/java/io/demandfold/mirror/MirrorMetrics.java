package io.demandfold.mirror;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.EnumMap;
import java.util.Map;

/**
 * Counters of the mirror: {@code demandfold_mirror_total{kind,result}} with result one of written,
 * unchanged, cas_retry, refused_newer_schema, refused_unreadable, too_large, replaced_invalid,
 * failed; {@code demandfold_etcd_requests_total{op,kind}} with op get (a read of the keys the
 * mirror does not know, one key or a batch's in one request, or of one key only to see etcd's
 * answer after 10 s without a call: kind {@code probe}) or txn (a compare-and-swap, of one key or a
 * batch) and kind the {@link RecordKind} of the keys it carries; {@code
 * demandfold_etcd_request_bytes_total{kind}}, the bytes those requests carried; the gauge {@code
 * demandfold_etcd_calls_in_flight}, requests sent and not yet answered; and the live mirror's
 * timers {@code demandfold_mirror_wait_seconds} (a changed key until its call) and {@code
 * demandfold_mirror_call_seconds} (a call until its last key is settled); {@code
 * demandfold_mirror_etcd_rewound_total}, how often etcd was seen to lose writes ({@link
 * EtcdEpoch}); {@code demandfold_mirror_key_failures_total{kind}}, writes etcd refused for a reason
 * of the key's own, {@code demandfold_mirror_keys_backing_off}, keys that wait out a backoff of
 * their own now, and {@code demandfold_mirror_pauses_total}, how often an error of etcd itself
 * paused every key ({@link LiveMirror}).
 */
public final class MirrorMetrics {
  private final Map<RecordKind, Map<MirrorResult, Counter>> results =
      new EnumMap<>(RecordKind.class);
  private final Map<RecordKind, Counter> casRetries = new EnumMap<>(RecordKind.class);
  private final Map<RecordKind, Counter> replacedInvalid = new EnumMap<>(RecordKind.class);

  /** The {@code kind} label of the requests that carry no record: the probe's reads. */
  static final String PROBE = "probe";

  private final Map<RecordKind, Counter> gets = new EnumMap<>(RecordKind.class);
  private final Map<RecordKind, Counter> txns = new EnumMap<>(RecordKind.class);
  private final Map<RecordKind, Counter> requestBytes = new EnumMap<>(RecordKind.class);
  private final Counter probes;
  private final Counter probeBytes;
  private final Counter rewound;
  private final Map<RecordKind, Counter> keyFailures = new EnumMap<>(RecordKind.class);
  private final Counter pauses;
  private final java.util.concurrent.atomic.AtomicInteger keysBackingOff =
      new java.util.concurrent.atomic.AtomicInteger();
  private final io.micrometer.core.instrument.Timer keyWait;
  private final io.micrometer.core.instrument.Timer callTime;
  private final java.util.concurrent.atomic.AtomicInteger inFlight =
      new java.util.concurrent.atomic.AtomicInteger();

  public MirrorMetrics(MeterRegistry registry) {
    for (RecordKind k : RecordKind.values()) {
      Map<MirrorResult, Counter> byResult = new EnumMap<>(MirrorResult.class);
      for (MirrorResult r : MirrorResult.values()) {
        byResult.put(r, counter(registry, k, r.label()));
      }
      results.put(k, byResult);
      casRetries.put(k, counter(registry, k, "cas_retry"));
      replacedInvalid.put(k, counter(registry, k, "replaced_invalid"));
      keyFailures.put(
          k,
          Counter.builder("demandfold.mirror.key.failures")
              .description(
                  "writes of a key etcd refused for a reason of the key's own (permission denied,"
                      + " request too large, every compare-and-swap lost): the key backs off alone")
              .tag("kind", k.label())
              .register(registry));
    }
    for (RecordKind k : RecordKind.values()) {
      gets.put(k, requests(registry, "get", k.label()));
      txns.put(k, requests(registry, "txn", k.label()));
      requestBytes.put(k, requestBytes(registry, k.label()));
    }
    probes = requests(registry, "get", PROBE);
    probeBytes = requestBytes(registry, PROBE);
    rewound =
        Counter.builder("demandfold.mirror.etcd.rewound")
            .description(
                "times etcd answered as another cluster or at a revision below one seen before:"
                    + " it lost writes, and the mirror wrote every key of its tasks again")
            .register(registry);
    pauses =
        Counter.builder("demandfold.mirror.pauses")
            .description(
                "times an error of etcd itself (unavailable, a timeout, no leader) paused every"
                    + " key of the live mirror")
            .register(registry);
    io.micrometer.core.instrument.Gauge.builder(
            "demandfold.mirror.keys.backing.off", keysBackingOff::get)
        .description("keys of the live mirror waiting out a backoff of their own now")
        .register(registry);
    keyWait =
        LatencyTimers.register(
            registry,
            "demandfold.mirror.wait",
            "how long a changed key waited for the live mirror to take it into a call, from its"
                + " oldest change not yet taken");
    callTime =
        LatencyTimers.register(
            registry,
            "demandfold.mirror.call",
            "how long a call of the live mirror took, from its start to its last key");
    io.micrometer.core.instrument.Gauge.builder("demandfold.etcd.calls.in.flight", inFlight::get)
        .description("etcd requests sent by the mirror and not yet answered")
        .register(registry);
  }

  /** Metrics kept only in memory, for tools that print their own summary. */
  public static MirrorMetrics detached() {
    return new MirrorMetrics(new SimpleMeterRegistry());
  }

  void record(RecordKind kind, MirrorOutcome o) {
    results.get(kind).get(o.result()).increment();
    if (o.casRetries() > 0) {
      casRetries.get(kind).increment(o.casRetries());
    }
    if (o.replacedInvalid()) {
      replacedInvalid.get(kind).increment();
    }
  }

  /**
   * Counts a read of {@code kind} keys sent (one request, whatever the number of keys) of about
   * {@code bytes}.
   */
  void countGet(RecordKind kind, long bytes) {
    gets.get(kind).increment();
    requestBytes.get(kind).increment(bytes);
  }

  /** Counts a compare-and-swap transaction of {@code kind} keys sent of about {@code bytes}. */
  void countTxn(RecordKind kind, long bytes) {
    txns.get(kind).increment();
    requestBytes.get(kind).increment(bytes);
  }

  /** Counts a read sent only to see etcd's answer, of about {@code bytes}. */
  void countProbe(long bytes) {
    probes.increment();
    probeBytes.increment(bytes);
  }

  /** etcd was seen to lose writes. */
  void rewound() {
    rewound.increment();
  }

  /** How often etcd was seen to lose writes. */
  public long rewinds() {
    return (long) rewound.count();
  }

  /** etcd refused a write of a {@code kind} key for a reason of the key's own. */
  void keyFailed(RecordKind kind) {
    keyFailures.get(kind).increment();
  }

  /** Writes of {@code kind} keys etcd refused for a reason of the key's own. */
  public long keyFailures(RecordKind kind) {
    return (long) keyFailures.get(kind).count();
  }

  /** {@code delta} keys began ({@code > 0}) or ended ({@code < 0}) a backoff of their own. */
  void backingOff(int delta) {
    keysBackingOff.addAndGet(delta);
  }

  /** Keys waiting out a backoff of their own now. */
  public int keysBackingOff() {
    return keysBackingOff.get();
  }

  /** An error of etcd paused every key. */
  void paused() {
    pauses.increment();
  }

  /** How often an error of etcd paused every key. */
  public long pauses() {
    return (long) pauses.count();
  }

  /** A key waited {@code ms} from its oldest change not yet taken until its call started. */
  void waited(long ms) {
    keyWait.record(Math.max(0, ms), java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /** A call of the live mirror took {@code ms}. */
  void called(long ms) {
    callTime.record(Math.max(0, ms), java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /** The timer of how long keys waited to be taken ({@link #waited}). */
  public io.micrometer.core.instrument.Timer keyWait() {
    return keyWait;
  }

  /** The timer of how long the live mirror's calls took ({@link #called}). */
  public io.micrometer.core.instrument.Timer callTime() {
    return callTime;
  }

  void callStarted() {
    inFlight.incrementAndGet();
  }

  void callEnded() {
    inFlight.decrementAndGet();
  }

  /** etcd requests sent and not yet answered (a timeout does not end one). */
  public int callsInFlight() {
    return inFlight.get();
  }

  /** How many of {@code kind} ended with {@code result}. */
  public long count(RecordKind kind, MirrorResult result) {
    return (long) results.get(kind).get(result).count();
  }

  /** Bytes of the etcd requests sent, by the estimate of {@link RequestBudget}. */
  public long etcdRequestBytes() {
    double sum = probeBytes.count();
    for (Counter c : requestBytes.values()) {
      sum += c.count();
    }
    return (long) sum;
  }

  /** Bytes of the etcd requests sent for {@code kind} keys. */
  public long etcdRequestBytes(RecordKind kind) {
    return (long) requestBytes.get(kind).count();
  }

  /** etcd requests sent: gets, transactions and probes. */
  public long etcdRequests() {
    long sum = (long) probes.count();
    for (RecordKind k : RecordKind.values()) {
      sum += etcdRequests(k);
    }
    return sum;
  }

  /** etcd requests sent for {@code kind} keys: gets and transactions. */
  public long etcdRequests(RecordKind kind) {
    return (long) (gets.get(kind).count() + txns.get(kind).count());
  }

  /** Compare-and-swap transactions sent for {@code kind} keys. */
  public long transactions(RecordKind kind) {
    return (long) txns.get(kind).count();
  }

  private static Counter counter(MeterRegistry registry, RecordKind kind, String result) {
    return Counter.builder("demandfold.mirror")
        .description("etcd mirror outcomes per key by kind and result")
        .tag("kind", kind.label())
        .tag("result", result)
        .register(registry);
  }

  private static Counter requests(MeterRegistry registry, String op, String kind) {
    return Counter.builder("demandfold.etcd.requests")
        .description("requests sent to etcd by the mirror, by the kind of record they carry")
        .tag("op", op)
        .tag("kind", kind)
        .register(registry);
  }

  private static Counter requestBytes(MeterRegistry registry, String kind) {
    return Counter.builder("demandfold.etcd.request.bytes")
        .description(
            "bytes the mirror sent to etcd: the keys and values of its requests with an estimate"
                + " of their framing, by the kind of record they carry")
        .baseUnit("bytes")
        .tag("kind", kind)
        .register(registry);
  }
}
