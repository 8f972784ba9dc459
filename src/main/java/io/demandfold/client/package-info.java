/**
 * The producer library: {@link io.demandfold.client.DemandPublisher} publishes writer, executor and
 * scan events from the caller's hot path without ever blocking it.
 */
package io.demandfold.client;
