package io.demandfold.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real headless Chromium ({@code /usr/bin/chromium}, Debian's package) driven over the DevTools
 * protocol with the JDK's WebSocket client. {@link #close()} closes the browser and makes sure its
 * processes are gone.
 */
final class Chromium implements AutoCloseable {
  static final Path BINARY = Path.of("/usr/bin/chromium");
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  private final Process process;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, CompletableFuture<JsonNode>> calls = new ConcurrentHashMap<>();
  private volatile WebSocket socket;

  private Chromium(Process process) {
    this.process = process;
  }

  /** Starts Chromium with a fresh profile in {@code profile}; its log goes to {@code log}. */
  static Chromium start(Path profile, Path log) throws Exception {
    if (!Files.isExecutable(BINARY)) {
      throw new IllegalStateException(
          BINARY + " is missing: run scripts/setup (apt-get install chromium)");
    }
    Process p =
        new ProcessBuilder(
                List.of(
                    BINARY.toString(),
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-quic",
                    "--disable-dev-shm-usage",
                    "--no-first-run",
                    "--no-default-browser-check",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--disable-extensions",
                    "--user-data-dir=" + profile,
                    "--remote-debugging-address=127.0.0.1",
                    "--remote-debugging-port=0",
                    "about:blank"))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      Path portFile = profile.resolve("DevToolsActivePort");
      long deadline = System.nanoTime() + PATIENCE.toNanos();
      while (!(Files.exists(portFile) && Files.readAllLines(portFile).size() >= 2)) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "Chromium did not open its DevTools port; its log: " + Files.readString(log));
        }
        Thread.sleep(100);
      }
      List<String> lines = Files.readAllLines(portFile);
      URI ws = URI.create("ws://127.0.0.1:" + lines.get(0).trim() + lines.get(1).trim());
      Chromium c = new Chromium(p);
      c.socket =
          HttpClient.newHttpClient()
              .newWebSocketBuilder()
              .connectTimeout(PATIENCE)
              .buildAsync(ws, c.new Listener())
              .get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      return c;
    } catch (Exception e) {
      kill(p);
      throw e;
    }
  }

  /** Opens a page of {@code width} x {@code height} CSS pixels at {@code url}. */
  Page open(String url, int width, int height) throws Exception {
    String target =
        call(null, "Target.createTarget", Map.of("url", "about:blank")).get("targetId").asText();
    String session =
        call(null, "Target.attachToTarget", Map.of("targetId", target, "flatten", true))
            .get("sessionId")
            .asText();
    Page page = new Page(session);
    call(
        session,
        "Emulation.setDeviceMetricsOverride",
        Map.of("width", width, "height", height, "deviceScaleFactor", 1, "mobile", false));
    call(session, "Page.navigate", Map.of("url", url));
    return page;
  }

  /** A page attached to this browser. */
  final class Page {
    private final String session;

    private Page(String session) {
      this.session = session;
    }

    /** The value of a JavaScript expression (JSON-serialisable). */
    JsonNode eval(String expression) throws Exception {
      JsonNode r =
          call(
              session,
              "Runtime.evaluate",
              Map.of("expression", expression, "returnByValue", true, "awaitPromise", true));
      if (r.has("exceptionDetails")) {
        throw new IllegalStateException("script failed: " + r.get("exceptionDetails"));
      }
      return r.at("/result/value");
    }

    /** Saves a PNG of the viewport. */
    void screenshot(Path png) throws Exception {
      JsonNode r = call(session, "Page.captureScreenshot", Map.of("format", "png"));
      Files.createDirectories(png.getParent());
      Files.write(png, Base64.getDecoder().decode(r.get("data").asText()));
    }
  }

  private JsonNode call(String session, String method, Map<String, Object> params)
      throws Exception {
    int id = ids.incrementAndGet();
    ObjectNode msg = Api.JSON.createObjectNode();
    msg.put("id", id);
    msg.put("method", method);
    msg.set("params", Api.JSON.valueToTree(params));
    if (session != null) {
      msg.put("sessionId", session);
    }
    CompletableFuture<JsonNode> reply = new CompletableFuture<>();
    calls.put(id, reply);
    socket
        .sendText(Api.JSON.writeValueAsString(msg), true)
        .get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    JsonNode r = reply.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    if (r.has("error")) {
      throw new IllegalStateException(method + " failed: " + r.get("error"));
    }
    return r.get("result");
  }

  private final class Listener implements WebSocket.Listener {
    private final StringBuilder text = new StringBuilder();

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      text.append(data);
      if (last) {
        try {
          JsonNode msg = Api.JSON.readTree(text.toString());
          if (msg.has("id")) {
            CompletableFuture<JsonNode> f = calls.remove(msg.get("id").asInt());
            if (f != null) {
              f.complete(msg);
            }
          }
        } catch (IOException e) {
          // not a reply we wait for
        }
        text.setLength(0);
      }
      ws.request(1);
      return null;
    }
  }

  /** Asks the browser to close, then ends whatever of it is left. */
  @Override
  public void close() {
    try {
      if (socket == null) {
        return;
      }
      int id = ids.incrementAndGet();
      socket
          .sendText("{\"id\":" + id + ",\"method\":\"Browser.close\"}", true)
          .get(5, TimeUnit.SECONDS);
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      // ended below
    } finally {
      kill(process);
    }
  }

  private static void kill(Process p) {
    List<ProcessHandle> tree = p.descendants().toList();
    tree.forEach(ProcessHandle::destroy);
    p.destroy();
    try {
      if (!p.waitFor(5, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
  }
}
