/**
 * The producer library: {@link io.demandfold.client.DemandPublisher} publishes writer, executor and
 * scan events from the caller's hot path without ever blocking it. It needs Kafka's client, not
 * etcd; the scheduler's reader is {@code io.demandfold.view.DemandView}, in demandfold-view.
 */
package io.demandfold.client;
