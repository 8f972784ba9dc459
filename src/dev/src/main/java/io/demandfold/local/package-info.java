/**
 * Real services on loopback, run as child processes: a single-node KRaft {@link
 * io.demandfold.local.KafkaBroker} and an {@link io.demandfold.local.EtcdServer}. {@code demandfold
 * local}, the benchmark and the integration tests start them; each keeps its data and its log file
 * in one data directory and can be killed and restarted on the same ports for fault tests.
 */
package io.demandfold.local;
