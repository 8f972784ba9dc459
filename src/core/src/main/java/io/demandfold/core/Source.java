package io.demandfold.core;

/** Who published an event (docs/model.md section 1). */
public enum Source {
  WRITER(0),
  SCAN(1),
  EXECUTOR(2);

  private final String wire = EnumNames.of(this);
  private final int tieRank;

  Source(int tieRank) {
    this.tieRank = tieRank;
  }

  /** The name on the wire: {@code writer}, {@code executor} or {@code scan}. */
  public String wire() {
    return wire;
  }

  /** Tie-break order on equal sealed marks and flush times: writer < scan < executor. */
  int tieRank() {
    return tieRank;
  }

  /** The source named {@code wire}, or {@code null} when the name is unknown. */
  public static Source fromWire(String wire) {
    switch (wire) {
      case "writer":
        return WRITER;
      case "executor":
        return EXECUTOR;
      case "scan":
        return SCAN;
      default:
        return null;
    }
  }
}
