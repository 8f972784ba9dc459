/**
 * The development commands: {@code demandfold local} (a broker, etcd, the pipeline and a simulated
 * fleet on this machine) and {@code demandfold bench}. Not in the service or its image.
 */
package io.demandfold.dev;
