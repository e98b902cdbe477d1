# The load balancer of the `cluster` profile: nginx from Debian's packages, round robin over the
# three instances. Build context: docker/.
FROM debian:bookworm-slim
RUN set -eux; \
    export DEBIAN_FRONTEND=noninteractive; \
    apt-get update -q; \
    apt-get install -y -q --no-install-recommends nginx-light; \
    rm -rf /var/lib/apt/lists/*
COPY nginx-cluster.conf /etc/nginx/nginx.conf
EXPOSE 8080
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
