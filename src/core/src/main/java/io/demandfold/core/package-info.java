/**
 * The demand model of docs/model.md: events and stored per-shard records, marks, the
 * order-independent idempotent {@link io.demandfold.core.Join}, the derived {@link
 * io.demandfold.core.ShardView} and {@link io.demandfold.core.TableView}, and the offline {@link
 * io.demandfold.core.Fold}.
 *
 * <p>This package is the one implementation of the join and the fold that every component (the
 * Kafka Streams topology, the etcd mirror, the CLI, the Connect sink) uses. It imports neither
 * Kafka nor etcd.
 */
package io.demandfold.core;
