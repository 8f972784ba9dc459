/**
 * The etcd side of demandfold: the key layout ({@link io.demandfold.mirror.EtcdLayout}), client
 * settings ({@link io.demandfold.mirror.EtcdSettings}) and the per-key read-join-compare-and-swap
 * ({@link io.demandfold.mirror.EtcdMirror}) that the stream outbox, the {@code rebuild} command and
 * the Connect sink all use. Each key is joined and compared on its own; the stream outbox sends up
 * to {@code mirror.batch.keys} keys per transaction, within etcd's limits on operations and request
 * bytes, the others one key per request. No Kafka imports (but for the settings declarations in
 * {@code io.demandfold.mirror.config}).
 */
package io.demandfold.mirror;
