package io.demandfold.cli;

import java.nio.file.Path;
import java.util.Map;

/**
 * Where demandfold keeps state when not told otherwise: {@code $XDG_STATE_HOME/demandfold}, or
 * {@code ~/.local/state/demandfold} when that variable is unset or not an absolute path (the XDG
 * base directory rule). Never the OS temp directory, which the OS may clear under a running
 * instance (Kafka Streams warns of it: its checkpoint files would go).
 */
public final class StateHome {
  private StateHome() {}

  /** The state home of this process. */
  public static Path current() {
    return of(System.getenv(), System.getProperty("user.home"));
  }

  static Path of(Map<String, String> env, String userHome) {
    String xdg = env.get("XDG_STATE_HOME");
    if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
      return Path.of(xdg, "demandfold");
    }
    return Path.of(userHome, ".local", "state", "demandfold");
  }
}
