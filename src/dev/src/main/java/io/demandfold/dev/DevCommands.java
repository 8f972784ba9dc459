package io.demandfold.dev;

import io.demandfold.cli.Main;
import java.util.List;

/**
 * Adds {@code local} and {@code bench} to {@code demandfold} when this module is on the class path.
 */
public final class DevCommands implements Main.MoreCommands {
  @Override
  public List<Object> commands() {
    return List.of(new LocalCommand(), new BenchCommand());
  }
}
