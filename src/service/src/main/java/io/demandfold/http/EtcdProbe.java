package io.demandfold.http;

/** One quick etcd request for {@code /readyz}; throws when etcd does not answer it. */
@FunctionalInterface
public interface EtcdProbe {
  void check() throws Exception;
}
