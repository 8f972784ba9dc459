package io.demandfold.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * The answer to a request Jetty refuses before any handler sees it (a malformed request, headers
 * over the limit): the API's JSON error, naming the status only, never echoing the request.
 */
final class JsonErrors extends ErrorHandler {
  @Override
  protected void generateResponse(
      Request request, Response response, int code, String message, Throwable cause, Callback cb)
      throws IOException {
    ObjectNode o = Replies.JSON.createObjectNode();
    o.put("status", code);
    o.put("error", Replies.reason(code));
    o.put("message", HttpStatus.getMessage(code));
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, Replies.JSON_TYPE);
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.getHeaders().put("X-Content-Type-Options", "nosniff");
    response.write(true, ByteBuffer.wrap(Replies.JSON.writeValueAsBytes(o)), cb);
  }
}
