/**
 * Examples of what users build on demandfold with their own tools. {@link
 * io.demandfold.examples.OwnerBacklog} uses only Kafka Streams and Jackson, not demandfold's
 * classes, as a user's application on the output topics would: it joins {@code demand.table-demand}
 * with a table of owners (see {@code examples/owner-backlog/README.md}). {@link
 * io.demandfold.examples.DueTables} is a scheduler's loop over the client library's live {@code
 * DemandView} (docs/consumers.md).
 */
package io.demandfold.examples;
