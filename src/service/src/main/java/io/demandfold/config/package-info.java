/**
 * Settings: each declared once ({@link io.demandfold.config.DemandfoldConfig#DEFINITION}: name,
 * type, default, validator, importance, documentation; the etcd and mirror settings the Connect
 * connectors take too in {@link io.demandfold.mirror.config.EtcdConfigs}, which also builds the
 * mirror from them) and read from, in increasing precedence, the defaults, a properties file,
 * {@code DEMANDFOLD_*} environment variables and flags ({@link
 * io.demandfold.config.SettingsLoader}).
 */
package io.demandfold.config;
