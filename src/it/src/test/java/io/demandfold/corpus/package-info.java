/**
 * The corpus of malformed and hostile events in {@code src/it/src/test/resources/bad-inputs/}: its
 * loader and the unit test that holds every entry to its documented reason.
 */
package io.demandfold.corpus;
