/**
 * Settings: each declared once ({@link io.demandfold.config.DemandfoldConfig#DEFINITION}: name,
 * type, default, validator, importance, documentation) and read from, in increasing precedence, the
 * defaults, a properties file, {@code DEMANDFOLD_*} environment variables and flags ({@link
 * io.demandfold.config.SettingsLoader}).
 */
package io.demandfold.config;
