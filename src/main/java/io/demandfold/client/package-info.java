/**
 * The client library a producer or a scheduler embeds: {@link io.demandfold.client.DemandPublisher}
 * publishes writer, executor and scan events from the caller's hot path without ever blocking it;
 * {@link io.demandfold.client.DemandView} holds the demand mirrored into etcd, live (snapshot, then
 * watch), ranked in urgency classes.
 */
package io.demandfold.client;
