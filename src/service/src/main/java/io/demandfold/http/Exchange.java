package io.demandfold.http;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * One request and its answer, as the handlers see them: the method, path, query and headers of a
 * Jetty {@link Request}, and one {@link #send} of the whole reply. The reply is written without
 * blocking: a client that reads it slowly holds no thread, and the request's {@link Callback}
 * completes when the reply has been written (or failed).
 */
final class Exchange {
  private final Request request;
  private final Response response;
  private final Callback callback;
  private final Runnable writing;
  private volatile int status = -1;

  /**
   * @param writing run once the reply begins to be written (its deadline starts)
   */
  Exchange(Request request, Response response, Callback callback, Runnable writing) {
    this.request = request;
    this.response = response;
    this.callback = callback;
    this.writing = writing;
  }

  String method() {
    return request.getMethod();
  }

  /** The decoded path ("" for none, as in {@code OPTIONS *}). */
  String path() {
    String path = request.getHttpURI().getDecodedPath();
    return path == null ? "" : path;
  }

  /** The query as sent (still encoded), or {@code null}. */
  String rawQuery() {
    return request.getHttpURI().getQuery();
  }

  /** The first value of a request header, or {@code null}. */
  String header(String name) {
    return request.getHeaders().get(name);
  }

  /** The number of header fields of the request. */
  int headerCount() {
    return request.getHeaders().size();
  }

  /** Sets a header of the reply; before {@link #send}. */
  void setHeader(String name, String value) {
    response.getHeaders().put(name, value);
  }

  /** The status sent, or -1 before {@link #send}. */
  int status() {
    return status;
  }

  /** Whether {@link #send} has been called. */
  boolean sent() {
    return status != -1;
  }

  /**
   * Sends the whole reply, {@code Content-Length} set; a HEAD request gets the headers only. Once
   * only: the request's callback completes when the bytes are written.
   */
  void send(int status, String contentType, byte[] body) {
    if (sent()) {
      throw new IllegalStateException("a reply was already sent: " + this.status);
    }
    this.status = status;
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
    response.getHeaders().put(new HttpField(HttpHeader.CONTENT_LENGTH, "" + body.length));
    writing.run();
    boolean head = "HEAD".equals(method());
    response.write(true, head ? null : ByteBuffer.wrap(body), callback);
  }

  /** Ends a request for which nothing was sent: the connection is failed and closed. */
  void abandon(Throwable why) {
    if (!sent()) {
      status = 500;
      callback.failed(why);
    }
  }
}
