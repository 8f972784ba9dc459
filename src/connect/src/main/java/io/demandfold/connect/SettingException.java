package io.demandfold.connect;

import org.apache.kafka.common.config.ConfigException;

/** A setting that is invalid in combination with others; {@link #setting()} names it. */
final class SettingException extends ConfigException {
  private static final long serialVersionUID = 1L;

  private final String setting;

  SettingException(String setting, Object value, String message) {
    super(setting, value, message);
    this.setting = setting;
  }

  String setting() {
    return setting;
  }
}
