# PostgreSQL for the `cluster` profile of docker/compose.yaml, from Debian's packages (no
# registry image is needed beyond debian:bookworm-slim). Build context: docker/.
FROM debian:bookworm-slim
RUN set -eux; \
    export DEBIAN_FRONTEND=noninteractive; \
    apt-get update -q; \
    apt-get install -y -q --no-install-recommends postgresql-15; \
    rm -rf /var/lib/apt/lists/*; \
    mkdir -p /var/lib/postgresql/data /run/postgresql; \
    chown -R postgres:postgres /var/lib/postgresql /run/postgresql
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
USER postgres
VOLUME ["/var/lib/postgresql/data"]
EXPOSE 5432
STOPSIGNAL SIGINT
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=5 CMD ["/usr/lib/postgresql/15/bin/pg_isready", "-h", "127.0.0.1"]
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
