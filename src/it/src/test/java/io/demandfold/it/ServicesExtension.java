package io.demandfold.it;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts one real Kafka broker and one real etcd per test class and injects them as {@link
 * Services} into constructors, {@code @BeforeAll} and test methods; they stop when the class is
 * done, also after a failure. Local child processes by default, containers with {@code
 * -Ddemandfold.services=testcontainers} (needs a Docker engine).
 *
 * <pre>{@code
 * @ExtendWith(ServicesExtension.class)
 * class MirrorIT {
 *   @Test
 *   void shouldMirror(Services services) {
 *     String topic = services.uniqueName("events");
 *     services.createTopic(topic, 3);
 *     ...
 *   }
 * }
 * }</pre>
 */
public final class ServicesExtension implements BeforeAllCallback, ParameterResolver {
  private static final Namespace NAMESPACE = Namespace.create(ServicesExtension.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    services(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == Services.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return services(context);
  }

  /**
   * The services of the top-level test class, started on first use and closed with its store (also
   * for other extensions of the class, such as {@link ConnectWorkerExtension}).
   */
  static Services services(ExtensionContext context) {
    ExtensionContext classContext = context;
    while (classContext.getParent().isPresent()
        && classContext.getParent().get() != classContext.getRoot()) {
      classContext = classContext.getParent().get();
    }
    return classContext
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(Services.class, key -> Services.start(), Services.class);
  }
}
