package io.demandfold.stream;

import java.util.Map;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * Builds a {@link DecodedStore} over a changelogged store from {@link Stores}: in memory or
 * RocksDB, metered and logged by Kafka Streams, without Kafka's own record cache.
 */
final class DecodedStoreBuilder<V> implements StoreBuilder<DecodedStore<V>> {
  private final StoreBuilder<KeyValueStore<String, V>> inner;
  private final int capacity;
  private final long writeAfterMs;
  private final boolean scanned;

  /**
   * @param capacity most clean decoded values each store instance keeps in memory
   * @param writeAfterMs a changed key left alone this long is written before the commit
   * @param scanned whether the stream thread scans the store by range or prefix
   */
  DecodedStoreBuilder(
      KeyValueBytesStoreSupplier supplier,
      Serde<V> values,
      int capacity,
      long writeAfterMs,
      boolean scanned) {
    this.inner = Stores.keyValueStoreBuilder(supplier, Serdes.String(), values);
    this.capacity = capacity;
    this.writeAfterMs = writeAfterMs;
    this.scanned = scanned;
  }

  @Override
  public StoreBuilder<DecodedStore<V>> withCachingEnabled() {
    throw new UnsupportedOperationException("a DecodedStore is its own cache");
  }

  @Override
  public StoreBuilder<DecodedStore<V>> withCachingDisabled() {
    return this;
  }

  @Override
  public StoreBuilder<DecodedStore<V>> withLoggingEnabled(Map<String, String> config) {
    inner.withLoggingEnabled(config);
    return this;
  }

  @Override
  public StoreBuilder<DecodedStore<V>> withLoggingDisabled() {
    throw new UnsupportedOperationException("a DecodedStore is always changelogged");
  }

  @Override
  public DecodedStore<V> build() {
    return new DecodedStore<>(inner.build(), capacity, writeAfterMs, scanned);
  }

  @Override
  public Map<String, String> logConfig() {
    return inner.logConfig();
  }

  @Override
  public boolean loggingEnabled() {
    return inner.loggingEnabled();
  }

  @Override
  public String name() {
    return inner.name();
  }
}
