/**
 * Kafka Connect plugins for demandfold: the etcd sink ({@link
 * io.demandfold.connect.EtcdSinkConnector}), which mirrors {@code demand.shard-records} (or folds
 * {@code demand.events}) into etcd through the pipeline's own read-join-CAS ({@link
 * io.demandfold.mirror.EtcdMirror}), and the etcd source ({@link
 * io.demandfold.connect.EtcdSourceConnector}), which turns records other writers put under {@code
 * <prefix>/demand-events/} into events: a snapshot at one revision, then a watch, with the etcd
 * revision as the source offset.
 *
 * <p>Both exchange raw bytes with Kafka: their converters are Connect's {@code ByteArrayConverter}.
 * Everything else here is package-private.
 */
package io.demandfold.connect;
