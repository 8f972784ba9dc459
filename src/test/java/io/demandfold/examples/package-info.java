/**
 * Examples of what users build on demandfold's output topics with their own tools. They use only
 * Kafka Streams and Jackson, not demandfold's classes: a user's application looks the same. {@link
 * io.demandfold.examples.OwnerBacklog} joins {@code demand.table-demand} with a table of owners
 * (see {@code examples/owner-backlog/README.md}).
 */
package io.demandfold.examples;
