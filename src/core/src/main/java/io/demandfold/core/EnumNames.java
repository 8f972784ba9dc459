package io.demandfold.core;

import java.util.Locale;

/**
 * The lower-case names enums are written by: in JSON and offsets, in URL parameters and as metric
 * labels ({@code REFUSED_NEWER_SCHEMA} is {@code refused_newer_schema}), and the way back, so that
 * the written name is the constant's own and never a second spelling of it.
 */
public final class EnumNames {
  private EnumNames() {}

  /** The lower-case name of {@code constant}. */
  public static String of(Enum<?> constant) {
    return constant.name().toLowerCase(Locale.ROOT);
  }

  /** The constant of {@code type} whose lower-case name is {@code name}; {@code null} if none. */
  public static <E extends Enum<E>> E parse(Class<E> type, Object name) {
    for (E constant : type.getEnumConstants()) {
      if (of(constant).equals(name)) {
        return constant;
      }
    }
    return null;
  }
}
