/**
 * The HTTP side of a running instance: {@code /metrics} (Prometheus), the demand API answered from
 * the Kafka Streams stores (interactive queries, forwarded to the instance that holds a target),
 * {@code /healthz} and {@code /readyz}, and the live dashboard served from the jar. {@link
 * io.demandfold.http.DemandServer} is the server; {@link io.demandfold.http.DemandStore} is what it
 * reads, backed by {@link io.demandfold.http.StreamsDemandStore}.
 */
package io.demandfold.http;
