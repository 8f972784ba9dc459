package io.demandfold.stream;

import io.demandfold.core.TableShard;

/**
 * What the table stage needs of a changed shard: its id and its table entry (marks, bytes, oldest
 * pending flush time), a few dozen bytes instead of the folded record.
 *
 * @param shard the shard id
 * @param entry its table entry
 */
record ShardSummary(String shard, TableShard entry) {}
