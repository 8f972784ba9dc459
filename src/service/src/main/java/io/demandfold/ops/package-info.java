/**
 * What operators run against a live system: read the events log from the beginning, up to now, to
 * given offsets or to the offsets of a time, and fold it offline ({@link
 * io.demandfold.ops.LogReplay}), read everything under an etcd prefix ({@link
 * io.demandfold.ops.EtcdSnapshot}), compare the two ({@link io.demandfold.ops.Audit}) and write the
 * fold into etcd through the mirror's join ({@link io.demandfold.ops.Rebuild}).
 */
package io.demandfold.ops;
