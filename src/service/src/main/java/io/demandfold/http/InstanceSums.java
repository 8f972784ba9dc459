package io.demandfold.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The endpoints that add up every instance's part ({@code /summary}, {@code /history}): with {@code
 * scope=local} an instance answers its own part; otherwise it asks every peer for theirs and sums
 * them with its own. An instance whose part cannot be had (a peer that does not answer, this one's
 * store not ready) is listed as unavailable.
 */
final class InstanceSums {
  /** This instance's part; may throw {@link StoreUnavailableException}. */
  @FunctionalInterface
  interface Part {
    ObjectNode get();
  }

  /** The reply made of the parts that could be had and the instances that are unavailable. */
  @FunctionalInterface
  interface Sum {
    ObjectNode of(List<JsonNode> parts, List<String> unavailable);
  }

  private InstanceSums() {}

  /**
   * Answers a request to {@code path} of instance {@code store}: {@code own} alone with {@code
   * scope=local}, else {@code sum} of {@code own} and the parts the peers answer {@code
   * path?scope=local} with (at most {@code maxReplyBytes} each), each read by {@code checked}.
   */
  static void answer(
      Exchange ex,
      DemandStore store,
      Peers peers,
      String path,
      long maxReplyBytes,
      Part own,
      Peers.Reader<JsonNode> checked,
      Sum sum)
      throws IOException, InterruptedException {
    Map<String, String> q = Replies.query(ex, Set.of("scope"));
    if (DemandApi.isLocal(q)) {
      Replies.json(ex, 200, own.get());
      return;
    }
    List<JsonNode> parts = new ArrayList<>();
    List<String> unavailable = new ArrayList<>();
    try {
      parts.add(own.get());
    } catch (StoreUnavailableException e) {
      unavailable.add(store.self());
    }
    Peers.Gathered<JsonNode> g =
        peers.gather(store.peers(), path + "?scope=local", maxReplyBytes, checked);
    parts.addAll(g.replies());
    unavailable.addAll(g.unavailable());
    Replies.json(ex, 200, sum.of(parts, unavailable));
  }
}
