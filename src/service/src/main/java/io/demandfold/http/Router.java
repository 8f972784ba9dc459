package io.demandfold.http;

import io.demandfold.core.Keys;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's one Jetty handler: sends each request whose line and headers have arrived to its
 * route's lane, with the guards every route shares (the header count, the Host check, methods,
 * exact paths, JSON errors, 503 when a lane is full) and the request count of {@code
 * demandfold.http.requests}. It never blocks: a handler that may wait runs on its lane's threads.
 */
final class Router extends Handler.Abstract {
  private static final Logger log = LoggerFactory.getLogger(Router.class);

  /** Which threads answer an endpoint. */
  enum Lane {
    /** Jetty's thread that parsed the request: quick answers that never wait for anything. */
    INLINE,
    /** Health, metrics and static files. */
    OPS,
    /** The demand API, which may wait for other instances. */
    API
  }

  /** What answers an endpoint. */
  @FunctionalInterface
  interface Answer {
    void handle(Exchange ex) throws Exception;
  }

  /** An endpoint: requests whose path starts with {@code path} (the longest such wins). */
  private record Route(String path, String endpoint, Answer answer, boolean exact, Lane lane) {}

  private final AllowedHosts hosts;
  private final ConnectionDeadlines deadlines;
  private final ExecutorService api;
  private final ExecutorService ops;
  private final PrometheusMeterRegistry registry;
  private final List<Route> routes = new ArrayList<>();

  Router(
      AllowedHosts hosts,
      ConnectionDeadlines deadlines,
      ExecutorService api,
      ExecutorService ops,
      PrometheusMeterRegistry registry) {
    this.hosts = hosts;
    this.deadlines = deadlines;
    this.api = api;
    this.ops = ops;
    this.registry = registry;
  }

  /**
   * Adds an endpoint, counted as {@code endpoint}; {@code exact}: only {@code path} itself, else
   * 404. Before the server starts.
   */
  Router route(String path, String endpoint, Answer answer, boolean exact, Lane lane) {
    routes.add(new Route(path, endpoint, answer, exact, lane));
    routes.sort(Comparator.comparingInt((Route r) -> r.path().length()).reversed());
    return this;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    long t0 = System.nanoTime();
    Connection c = request.getConnectionMetaData().getConnection();
    deadlines.answering(c);
    Callback done =
        new Callback() {
          @Override
          public void succeeded() {
            deadlines.answered(c);
            callback.succeeded();
          }

          @Override
          public void failed(Throwable x) {
            deadlines.answered(c);
            callback.failed(x);
          }
        };
    Exchange ex = new Exchange(request, response, done, () -> deadlines.writing(c));
    String path = ex.path();
    // the longest prefix; "/" (the dashboard, which answers 404 to what it does not hold) last
    Route route =
        routes.stream()
            .filter(r -> path.startsWith(r.path()))
            .findFirst()
            .orElse(routes.get(routes.size() - 1));
    String host = ex.header("Host");
    if (!hosts.allows(host)) {
      answer(ex, route, t0, misdirected(host));
    } else if (route.lane() == Lane.INLINE) {
      answer(ex, route, t0, route.answer());
    } else {
      try {
        (route.lane() == Lane.API ? api : ops).execute(() -> answer(ex, route, t0, route.answer()));
      } catch (RejectedExecutionException e) {
        answer(ex, route, t0, Router::busy);
      }
    }
    return true;
  }

  private static Answer misdirected(String host) {
    return ex -> {
      throw new ApiException(
          421,
          "this instance does not answer to the host '"
              + Keys.abbreviate(host)
              + "' (Host header); use its address, localhost, or add the name to"
              + " http.allowed.hosts");
    };
  }

  private static void busy(Exchange ex) {
    throw new StoreUnavailableException("too many requests in progress; retry", null);
  }

  /** Runs {@code h}, answers its errors as JSON and counts the request. */
  private void answer(Exchange ex, Route route, long t0, Answer h) {
    try {
      if (ex.headerCount() > HttpLimits.MAX_HEADERS) {
        ex.setHeader("Connection", "close");
        throw new ApiException(
            431, "more than " + HttpLimits.MAX_HEADERS + " header fields in the request");
      }
      Replies.requireGet(ex);
      if (route.exact() && !ex.path().equals(route.path())) {
        throw ApiException.notFound("no such page: " + ex.path());
      }
      h.handle(ex);
    } catch (ApiException e) {
      fail(ex, e.status, e.getMessage());
    } catch (StoreUnavailableException e) {
      ex.setHeader("Retry-After", "1");
      fail(ex, 503, e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      fail(ex, 503, "interrupted: the instance is stopping");
    } catch (Exception e) {
      log.warn("http: {} {} failed", ex.method(), ex.path(), e);
      fail(ex, 500, "internal error: " + e);
    } finally {
      if (!ex.sent()) {
        fail(ex, 500, "internal error: no reply");
      }
      Timer.builder("demandfold.http.requests")
          .description("HTTP requests served, by endpoint and status")
          .tag("endpoint", route.endpoint())
          .tag("status", String.valueOf(ex.status()))
          .register(registry)
          .record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
    }
  }

  /** Answers with a JSON error unless a reply has already begun. */
  private static void fail(Exchange ex, int status, String message) {
    if (!ex.sent()) {
      try {
        Replies.error(ex, status, message);
      } catch (IOException | RuntimeException e) {
        log.debug("http: cannot answer {} {}: {}", ex.method(), ex.path(), e.toString());
        ex.abandon(e);
      }
    }
  }
}
