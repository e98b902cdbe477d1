# PostgreSQL run by pg_auto_failover for the `ha` profile of docker/compose.yaml: one image for the
# monitor and for each node, from Debian's packages (pg-auto-failover-cli and
# postgresql-15-auto-failover; no registry image beyond debian:bookworm-slim). The entry point's
# argument says which: `monitor` or `node`. Build context: docker/.
FROM debian:bookworm-slim
RUN set -eux; \
    export DEBIAN_FRONTEND=noninteractive; \
    apt-get update -q; \
    apt-get install -y -q --no-install-recommends postgresql-15 postgresql-15-auto-failover pg-auto-failover-cli; \
    rm -rf /var/lib/apt/lists/*; \
    mkdir -p /var/lib/postgresql/data /run/postgresql; \
    chown -R postgres:postgres /var/lib/postgresql /run/postgresql
COPY postgres-ha-entrypoint.sh /usr/local/bin/postgres-ha-entrypoint.sh
USER postgres
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/bin:/usr/bin:/bin \
    XDG_CONFIG_HOME=/var/lib/postgresql/data/config \
    XDG_DATA_HOME=/var/lib/postgresql/data/share
VOLUME ["/var/lib/postgresql/data"]
EXPOSE 5432
STOPSIGNAL SIGINT
HEALTHCHECK --interval=5s --timeout=3s --start-period=30s --retries=5 CMD ["pg_isready", "-h", "127.0.0.1"]
ENTRYPOINT ["/usr/local/bin/postgres-ha-entrypoint.sh"]
