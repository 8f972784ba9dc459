package io.demandfold.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link DecodedStore}: reads see every write at once; the inner (changelogged) store sees each
 * changed key once per {@link DecodedStore#flushCache}, with its last value; a key put and deleted
 * between two commits writes nothing; reads from other threads never bring back a deleted value.
 */
class DecodedStoreTest {
  private final List<String> innerWrites = new ArrayList<>();
  private KeyValueStore<String, String> inner;
  private DecodedStore<String> store;

  @BeforeEach
  void setUp() {
    inner =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("s"), Serdes.String(), Serdes.String())
            .withLoggingDisabled()
            .build();
    store = new DecodedStore<>(recording(inner), 2, Long.MAX_VALUE, false);
    store.init(new MockProcessorContext<String, String>().getStateStoreContext(), store);
  }

  @SuppressWarnings("unchecked")
  private KeyValueStore<String, String> recording(KeyValueStore<String, String> target) {
    return (KeyValueStore<String, String>)
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {KeyValueStore.class},
            (proxy, method, args) -> {
              if (method.getName().equals("put") || method.getName().equals("delete")) {
                innerWrites.add(method.getName() + " " + args[0]);
              }
              return method.invoke(target, args);
            });
  }

  @Test
  void shouldWriteEachChangedKeyOnceAtTheCommitWithItsLastValue() {
    for (int i = 0; i < 100; i++) {
      store.put("a", "a" + i);
    }
    store.put("b", "b0");
    assertThat(store.get("a")).isEqualTo("a99");
    assertThat(inner.get("a")).as("nothing reaches the changelog before the commit").isNull();

    store.flushCache();

    assertThat(innerWrites).containsExactlyInAnyOrder("put a", "put b");
    assertThat(inner.get("a")).isEqualTo("a99");
    store.flushCache();
    assertThat(innerWrites).as("a commit with nothing changed writes nothing").hasSize(2);
  }

  @Test
  void shouldWriteNothingForAKeyPutAndDeletedBetweenTwoCommits() {
    store.put("a", "1");
    store.delete("a");
    store.flushCache();
    assertThat(innerWrites).isEmpty();
    assertThat(store.get("a")).isNull();

    store.put("b", "1");
    store.flushCache();
    store.delete("b");
    assertThat(store.get("b")).isNull();
    store.flushCache();
    assertThat(innerWrites).containsExactly("put b", "delete b");
    assertThat(inner.get("b")).isNull();
  }

  @Test
  void shouldScanCommittedAndUncommittedEntriesInKeyOrder() {
    store.put("t/a", "1");
    store.put("t/c", "3");
    store.put("u/x", "9");
    store.flushCache();
    store.put("t/b", "2");
    store.put("t/c", "33");
    store.delete("t/a");

    List<KeyValue<String, String>> seen = new ArrayList<>();
    try (KeyValueIterator<String, String> it = store.prefixScan("t/", new StringSerializer())) {
      it.forEachRemaining(seen::add);
    }
    assertThat(seen).containsExactly(KeyValue.pair("t/b", "2"), KeyValue.pair("t/c", "33"));
  }

  /**
   * Scans lay exactly the uncommitted changes within them over the inner store, whether the changed
   * keys are kept in key order (a store the stream thread scans) or not: random puts and deletes
   * over keys whose prefixes nest and neighbour ("a/", "a0/", "ab/", "b/"), some committed, against
   * a sorted map of what was written.
   */
  @org.junit.jupiter.params.ParameterizedTest(name = "changed keys in key order: {0}")
  @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
  void shouldScanPrefixesRangesAndAllAsASortedMapOfEveryWrite(boolean scanned) {
    DecodedStore<String> store = new DecodedStore<>(inner, 2, Long.MAX_VALUE, scanned);
    store.init(new MockProcessorContext<String, String>().getStateStoreContext(), store);
    java.util.Random random = new java.util.Random(42);
    java.util.TreeMap<String, String> model = new java.util.TreeMap<>();
    // keys changed since the last commit; the inner store holds the model as it was then
    java.util.Set<String> changed = new java.util.HashSet<>();
    int committed = 0;
    String[] prefixes = {"a/", "a0/", "ab/", "b/", "a"};
    for (int step = 0; step < 2_000; step++) {
      String key = prefixes[random.nextInt(prefixes.length)] + random.nextInt(30);
      changed.add(key);
      if (random.nextInt(4) == 0) {
        store.delete(key);
        model.remove(key);
      } else {
        store.put(key, "v" + step);
        model.put(key, "v" + step);
      }
      if (random.nextInt(300) == 0) {
        store.flushCache();
        changed.clear();
        committed = model.size();
        assertThat(store.approximateNumEntries()).as("entries at a commit").isEqualTo(model.size());
      }
      if (step % 97 == 0) {
        for (String p : prefixes) {
          assertThat(list(store.prefixScan(p, new StringSerializer())))
              .as("prefix %s at step %d", p, step)
              .containsExactlyElementsOf(pairs(model.subMap(p, p + Character.MAX_VALUE)));
        }
        assertThat(list(store.range("a0/", "ab/2")))
            .containsExactlyElementsOf(pairs(model.subMap("a0/", true, "ab/2", true)));
        assertThat(list(store.range("b/", null)))
            .containsExactlyElementsOf(pairs(model.tailMap("b/")));
        assertThat(list(store.range(null, "a/3")))
            .containsExactlyElementsOf(pairs(model.headMap("a/3", true)));
        assertThat(list(store.all())).containsExactlyElementsOf(pairs(model));
        // the inner store counts the keys of the last commit, the changed keys come on top
        assertThat(store.approximateNumEntries())
            .as("entries at step %d", step)
            .isBetween((long) model.size(), (long) committed + changed.size());
      }
    }
  }

  private static List<KeyValue<String, String>> list(KeyValueIterator<String, String> it) {
    List<KeyValue<String, String>> out = new ArrayList<>();
    try (it) {
      it.forEachRemaining(out::add);
    }
    return out;
  }

  private static List<KeyValue<String, String>> pairs(java.util.Map<String, String> m) {
    List<KeyValue<String, String>> out = new ArrayList<>();
    m.forEach((k, v) -> out.add(KeyValue.pair(k, v)));
    return out;
  }

  @Test
  void shouldNotLetAReadFromAnotherThreadBringBackADeletedValue() throws Exception {
    for (int i = 0; i < 10; i++) {
      store.put("k" + i, "v" + i);
    }
    store.flushCache();
    // capacity 2: most clean values were dropped; a query thread reads one from the inner store
    assertThat(CompletableFuture.supplyAsync(() -> store.get("k5")).get()).isEqualTo("v5");
    store.delete("k5");
    store.flushCache();
    assertThat(store.get("k5")).isNull();
    assertThat(CompletableFuture.supplyAsync(() -> store.get("k5")).get()).isNull();
  }

  @Test
  void shouldWriteAKeyLeftAloneBeforeTheCommitAndOnlyOnce() throws Exception {
    DecodedStore<String> early = new DecodedStore<>(recording(inner), 2, 20, false);
    early.init(new MockProcessorContext<String, String>().getStateStoreContext(), early);
    early.put("a", "1");
    early.put("b", "1");
    Thread.sleep(40);
    early.put("c", "1");
    assertThat(innerWrites).as("a and b were left alone for 20 ms").contains("put a", "put b");
    assertThat(inner.get("a")).isEqualTo("1");
    assertThat(early.get("a")).isEqualTo("1");
    early.put("a", "2");
    early.flushCache();
    assertThat(innerWrites).containsExactlyInAnyOrder("put a", "put b", "put a", "put c");
    assertThat(inner.get("a")).isEqualTo("2");
  }

  @Test
  void shouldForgetEverythingUncommittedWhenTheCacheIsCleared() {
    store.put("a", "1");
    store.clearCache();
    assertThat(store.get("a")).isNull();
    store.flushCache();
    assertThat(innerWrites).isEmpty();
  }
}
