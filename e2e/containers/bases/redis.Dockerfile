# Stand-in for the official redis:7-alpine (see ../prepare.sh), from Debian's redis-server 7.0.
# Same conventions: working directory /data, user redis, the entrypoint drops root to it for
# `redis-server ...` commands, and protected mode is off (the official build patches it off:
# access is governed by the container network).
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown redis:redis /data
COPY redis-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
WORKDIR /data
VOLUME /data
EXPOSE 6379
ENTRYPOINT ["/bin/sh", "/usr/local/bin/docker-entrypoint.sh"]
CMD ["redis-server"]
