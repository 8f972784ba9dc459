/**
 * Integration tests against a real Kafka broker and a real etcd ({@code *IT}, run by Failsafe), and
 * {@link io.demandfold.it.ServicesExtension}, which gives each test class one of each.
 */
package io.demandfold.it;
