/**
 * The etcd and mirror settings, each declared once with Kafka's {@code ConfigDef} (name, type,
 * default, validator, importance, documentation), that the pipeline's configuration and the Connect
 * connectors share. The only part of demandfold-mirror that needs kafka-clients, an optional
 * dependency of the module.
 */
package io.demandfold.mirror.config;
