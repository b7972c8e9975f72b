# Stand-in for the official postgres:17-alpine (see ../prepare.sh), from Debian's PostgreSQL 15
# (bookworm has no 17; the compose file relies on the image's conventions, not its version):
# user postgres with the Alpine image's uid/gid 70, PGDATA /var/lib/postgresql/data, and the
# entrypoint's POSTGRES_USER / POSTGRES_DB / POSTGRES_PASSWORD(_FILE) and
# /docker-entrypoint-initdb.d handling; pg_isready and psql on PATH.
FROM debian:bookworm-slim
RUN groupadd --gid 70 postgres \
 && useradd --uid 70 --gid 70 --home-dir /var/lib/postgresql --shell /bin/sh postgres \
 && mkdir -p /etc/postgresql-common/createcluster.d \
 && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.d/no-main.conf \
 && apt-get update \
 && apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /docker-entrypoint-initdb.d /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql \
 && chmod 3777 /var/run/postgresql
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME /var/lib/postgresql/data
STOPSIGNAL SIGINT
EXPOSE 5432
ENTRYPOINT ["/bin/bash", "/usr/local/bin/docker-entrypoint.sh"]
CMD ["postgres"]
