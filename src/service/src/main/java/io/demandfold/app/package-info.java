/**
 * The running service: wires settings, topics, the etcd client and mirror, and the Kafka Streams
 * topology together, and shuts them down cleanly.
 */
package io.demandfold.app;
