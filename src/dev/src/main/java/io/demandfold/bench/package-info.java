/**
 * The end-to-end benchmark ({@code demandfold bench}): a real broker and a real etcd on loopback, a
 * preloaded stream of fleet events, and in one run the read limit, the pipeline, the reference
 * per-event read-join-CAS, the produce-to-etcd latency and the heap of a service process.
 */
package io.demandfold.bench;
