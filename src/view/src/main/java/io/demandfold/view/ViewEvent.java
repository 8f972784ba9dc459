package io.demandfold.view;

/**
 * A key of etcd as the view reads it: from a snapshot page (always a put) or a watch event.
 *
 * @param key the etcd key
 * @param value its value, {@code null} for a deletion
 * @param revision the key's mod revision (of a deletion: the revision that deleted it)
 */
record ViewEvent(String key, byte[] value, long revision) {
  boolean deleted() {
    return value == null;
  }
}
