package io.demandfold.connect;

/** The version the connectors report: the jar's {@code Implementation-Version}. */
final class Version {
  private Version() {}

  static String get() {
    String v = Version.class.getPackage().getImplementationVersion();
    return v == null ? "unknown" : v;
  }
}
