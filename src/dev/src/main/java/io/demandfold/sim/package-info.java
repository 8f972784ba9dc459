/**
 * A simulated fleet of table writers, merge executors and a storage scan: {@link
 * io.demandfold.sim.FleetModel} yields realistic events (for {@code demandfold local} and the
 * benchmark), {@link io.demandfold.sim.FleetSimulator} publishes them live at given rates.
 */
package io.demandfold.sim;
