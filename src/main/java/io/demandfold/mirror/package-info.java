/**
 * The etcd side of demandfold: the key layout ({@link io.demandfold.mirror.EtcdLayout}), client
 * settings ({@link io.demandfold.mirror.EtcdSettings}) and the per-key read-join-compare-and-swap
 * ({@link io.demandfold.mirror.EtcdMirror}) that the stream outbox, the {@code rebuild} command and
 * the Connect sink all use. One key per etcd request, never a multi-key transaction. No Kafka
 * imports.
 */
package io.demandfold.mirror;
