package io.demandfold.client;

/** How event values are written to Kafka. */
public enum Encoding {
  /** Avro single-object encoding of {@code schemas/DemandEvent.avsc} (the default). */
  AVRO,
  /** Canonical JSON, with {@code target} first. */
  JSON
}
