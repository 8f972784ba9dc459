package io.demandfold.http;

/** A request the API refuses, with the HTTP status and a message for the JSON error body. */
final class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  final int status;

  ApiException(int status, String message) {
    super(message);
    this.status = status;
  }

  static ApiException badRequest(String message) {
    return new ApiException(400, message);
  }

  static ApiException notFound(String message) {
    return new ApiException(404, message);
  }
}
