/**
 * The {@code demandfold} command line (picocli): one class per command, each a thin layer over the
 * core, stream, mirror and client packages.
 */
package io.demandfold.cli;
