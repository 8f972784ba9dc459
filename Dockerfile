# demandfold in a container, from the jar built on the host: mvn -B -DskipTests package.
# Configure it with DEMANDFOLD_* environment variables (./demandfold settings lists them); set
# DEMANDFOLD_HTTP_HOST=0.0.0.0 to reach the dashboard and API from outside the container.
FROM eclipse-temurin:17-jre
RUN useradd --system --uid 10001 --home-dir /opt/demandfold demandfold \
    && mkdir -p /var/lib/demandfold \
    && chown demandfold /var/lib/demandfold
WORKDIR /opt/demandfold
COPY target/lib/ target/lib/
COPY target/demandfold.jar target/demandfold.jar
USER demandfold
EXPOSE 8080
ENTRYPOINT ["java", "-jar", "target/demandfold.jar"]
CMD ["run"]
