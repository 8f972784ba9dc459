package io.demandfold.it;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real Kafka Connect worker ({@link ConnectWorker}) per test class, on the class's broker from
 * {@link ServicesExtension}: started before the first test, stopped after the last, also after a
 * failure (before the broker stops).
 *
 * <pre>{@code
 * @ExtendWith(ServicesExtension.class)
 * class EtcdSinkConnectorIT {
 *   @RegisterExtension
 *   static final ConnectWorkerExtension connect = ConnectWorkerExtension.named("sink-worker");
 *
 *   @Test
 *   void shouldMirror(Services services) throws Exception {
 *     connect.worker().create("sink", config);
 *     ...
 *   }
 * }
 * }</pre>
 */
final class ConnectWorkerExtension implements BeforeAllCallback, AfterAllCallback {
  private final String name;
  private ConnectWorker worker;

  private ConnectWorkerExtension(String name) {
    this.name = name;
  }

  /** A worker whose group id (and storage topics) start with {@code name}, unique per class. */
  static ConnectWorkerExtension named(String name) {
    return new ConnectWorkerExtension(name);
  }

  /** The running worker; only between the class's first and last test. */
  ConnectWorker worker() {
    if (worker == null) {
      throw new IllegalStateException(
          "no Connect worker outside the tests (register the extension on a static field)");
    }
    return worker;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    Services services = ServicesExtension.services(context);
    worker = ConnectWorker.start(services, services.uniqueName(name));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (worker != null) {
      try {
        worker.close();
      } finally {
        worker = null;
      }
    }
  }
}
