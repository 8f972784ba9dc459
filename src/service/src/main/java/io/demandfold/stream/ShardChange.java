package io.demandfold.stream;

import io.demandfold.core.ShardRecord;

/**
 * A changed shard record on its way downstream, with its canonical JSON, made once for etcd, the
 * shard-records topic and nothing else.
 *
 * @param record the folded record
 * @param json {@link io.demandfold.core.codec.JsonCodec#encodeRecord} of it
 */
record ShardChange(ShardRecord record, byte[] json) implements ShardOut {}
