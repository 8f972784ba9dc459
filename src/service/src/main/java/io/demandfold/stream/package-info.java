/**
 * The Kafka Streams application: the topology ({@link io.demandfold.stream.DemandTopology}), the
 * per-shard join and per-target fold processors, their etcd outbox (dirty keys in a changelogged
 * store, handed to the instance's live mirror and settled once etcd acknowledged them), the emit
 * pacing, the dead-letter handlers, and the serdes. The join itself is the core's; etcd is reached
 * through the mirror package.
 */
package io.demandfold.stream;
