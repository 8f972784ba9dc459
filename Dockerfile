# syntax=docker/dockerfile:1
# demandfold's images, built from the sources alone (no host build, no Maven or JDK on the host):
#
#   docker build -t demandfold:local .                                # the service (the last stage)
#   docker build --target connect -t demandfold-connect:local .       # a Connect worker with the plugin
#
# The service is configured with DEMANDFOLD_* variables (`docker run --rm demandfold:local settings`
# lists every setting). Needs BuildKit (the default builder since Docker 23) for the cache of the
# Maven repository between builds. DockerComposeTest holds this file to the code (no CI builds it).

# --- the sources: what the Maven build reads, and nothing of the host's target/ directories
FROM maven:3.9-eclipse-temurin-17 AS sources
WORKDIR /src
COPY pom.xml LICENSE NOTICE ./
COPY schemas/ schemas/
COPY topology/ topology/
COPY connectors/ connectors/
COPY src/ src/

# --- the service's jar and its runtime libraries: src/service/target/{demandfold-service.jar,lib/}
FROM sources AS build
RUN --mount=type=cache,target=/root/.m2 mvn -B -DskipTests -pl src/service -am package

# --- the Connect plugin: src/connect/target/connect-plugin/demandfold-connect/
FROM sources AS build-connect
RUN --mount=type=cache,target=/root/.m2 mvn -B -DskipTests -pl src/connect -am package

# --- a Kafka Connect worker (the Kafka image of the version demandfold is built with) with the
# demandfold plugin in its plugin.path (docker/connect-distributed.properties)
FROM apache/kafka:4.3.1 AS connect
COPY --from=build-connect /src/src/connect/target/connect-plugin/demandfold-connect/ /opt/connect-plugins/demandfold-connect/
COPY docker/connect-distributed.properties /etc/demandfold/connect-distributed.properties
ENTRYPOINT ["/opt/kafka/bin/connect-distributed.sh"]
CMD ["/etc/demandfold/connect-distributed.properties"]

# --- the service: a JRE, the jar and its libraries (no Maven, no sources, no broker, no bench)
FROM eclipse-temurin:17-jre AS service
# a user of its own (uid 10001, not root); its home is the state directory, which it owns
RUN groupadd --system --gid 10001 demandfold \
    && useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/demandfold --no-create-home \
       --shell /usr/sbin/nologin demandfold \
    && mkdir -p /var/lib/demandfold \
    && chown 10001:10001 /var/lib/demandfold
WORKDIR /opt/demandfold
COPY --from=build /src/src/service/target/lib/ /opt/demandfold/lib/
COPY --from=build /src/src/service/target/demandfold-service.jar /opt/demandfold/demandfold-service.jar
# Defaults that work in a container: listen on every interface (the API has no authentication:
# publish the port to trusted networks only), the state stores on the volume, and a heap of half
# the container's memory (the rest is for RocksDB's off-heap memory, Netty's direct buffers and
# the JVM itself); an OutOfMemoryError ends the process (exit status 3) for the orchestrator to
# restart it. Override any of them with -e.
ENV DEMANDFOLD_HTTP_HOST=0.0.0.0 \
    DEMANDFOLD_HTTP_PORT=8080 \
    DEMANDFOLD_KAFKA_STATE_DIR=/var/lib/demandfold \
    JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=50 -XX:+ExitOnOutOfMemoryError"
# Kafka Streams' state stores: a volume, so that a new container restores only the changelogs' tail
VOLUME /var/lib/demandfold
USER 10001:10001
EXPOSE 8080
# /healthz over bash's /dev/tcp: the JRE image has bash for sure, while its curl is there only "for
# historical reasons" (adoptium/containers#255) and a JVM per probe would cost a second of CPU
HEALTHCHECK --interval=10s --timeout=5s --start-period=120s --retries=3 \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${DEMANDFOLD_HTTP_PORT:-8080} && printf 'GET /healthz HTTP/1.0\\r\\nHost: 127.0.0.1\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q '^HTTP/1\\.[01] 200 '"]
# SIGTERM (docker stop) closes the instance cleanly: it leaves the consumer group and flushes its
# stores; give it longer than its close (compose: stop_grace_period)
ENTRYPOINT ["java", "-jar", "/opt/demandfold/demandfold-service.jar"]
CMD ["run"]
