# The images of the plain Node services (relay, ui, calendar, outputs, sources): one build stage for
# all of them, then one short stage per service with its defaults, port and health check. Pick the
# service twice, as compose/compose.yaml does: the build argument selects the package to build,
# the target its image (e2e/deploy checks that compose passes the same name to both).
#   docker build -f services/node-services.Dockerfile --build-arg SERVICE=relay --target relay \
#     -t live-captions/relay .
# speech and worker have their own Dockerfiles: they compile the whisper.cpp addon.
# Builds are lockfile-exact and offline after `pnpm fetch`; `pnpm deploy` copies the workspace
# packages in (inject-workspace-packages) and takes every version from the lockfile.
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
ARG SERVICE
ENV CI=true COREPACK_ENABLE_DOWNLOAD_PROMPT=0 COREPACK_INTEGRITY_KEYS=0
RUN corepack enable
WORKDIR /repo
# The package store from the lockfile alone: this layer is reused until pnpm-lock.yaml changes,
# and it is the only step that downloads; everything after it runs --offline.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch --frozen-lockfile
COPY . .
# ui's pages are bundled by @live-captions/web's build (esbuild ships its binary as an optional
# dependency, so no install script is needed).
RUN : "${SERVICE:?build with --build-arg SERVICE=relay, ui, calendar, outputs or sources}" \
 && pnpm install --frozen-lockfile --offline --ignore-scripts \
      --filter "@live-captions/${SERVICE}..." --filter live-captions \
 && pnpm --filter "@live-captions/${SERVICE}..." run build \
 && pnpm --config.inject-workspace-packages=true --filter @live-captions/${SERVICE} \
      deploy --prod --offline --ignore-scripts /out

# What every service's image shares; the stages below add its own defaults and then run as 1000.
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /out /app
COPY compose/healthcheck.mjs /app/healthcheck.mjs
CMD ["node", "dist/index.js"]

# Caption relay (WebSocket on /ws, /health, /metrics). uid/gid 1000 must be able to read
# secrets/relay.private.json (`make secrets` as root chowns it to 1000:1000, 0640).
FROM runtime AS relay
ENV RELAY_BIND=0.0.0.0 RELAY_PORT=8080 CAPTION_RELAY_CONFIG=/run/secrets/relay.private.json
USER 1000:1000
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=10s --retries=3 \
  CMD node /app/healthcheck.mjs http "http://127.0.0.1:${RELAY_PORT}/health"

# Static web UI (links hub or landing page, editor, overlay, /site-config.js). Its check asks for
# the home page itself, not only the generated /site-config.js.
FROM runtime AS ui
ENV UI_BIND=0.0.0.0 UI_PORT=8081
USER 1000:1000
EXPOSE 8081
HEALTHCHECK --interval=15s --timeout=5s --start-period=10s --retries=3 \
  CMD node /app/healthcheck.mjs http "http://127.0.0.1:${UI_PORT}/"

# Calendar events REST API. In compose it uses the postgres service (DATABASE_URL, password from
# the postgres_password secret as PGPASSWORD); without DATABASE_URL it falls back to an embedded
# PGlite database under CALENDAR_DATA_DIR.
FROM runtime AS calendar
ENV CALENDAR_BIND=0.0.0.0 CALENDAR_PORT=8082 CALENDAR_DATA_DIR=/data/calendar
RUN mkdir -p /data/calendar && chown 1000:1000 /data/calendar
USER 1000:1000
EXPOSE 8082
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD node /app/healthcheck.mjs http "http://127.0.0.1:${CALENDAR_PORT}${CALENDAR_REST_ROOT:-/wp-json}/cal/events/v1/"

# Caption destinations (YouTube Live, Zoom, transcript archive; HTTP API on 8083, /health,
# /metrics). Reads the output rooms from the relay (RELAY_URL) with the read tokens of the relay's
# private configuration (CAPTION_RELAY_CONFIG, mounted as a secret). PostgreSQL with DATABASE_URL;
# without it an embedded PGlite under OUTPUTS_DATA_DIR (one replica). REDIS_URL: room leases, so
# that several replicas may run.
FROM runtime AS outputs
ENV OUTPUTS_BIND=0.0.0.0 OUTPUTS_PORT=8083 OUTPUTS_DATA_DIR=/data/outputs \
    CAPTION_RELAY_CONFIG=/run/secrets/relay.private.json
RUN mkdir -p /data/outputs && chown 1000:1000 /data/outputs
USER 1000:1000
EXPOSE 8083
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD node /app/healthcheck.mjs http "http://127.0.0.1:${OUTPUTS_PORT}/health"

# Stream sources (issue 35: RTMP, RTMPS, SRT, RTSP, HLS and HTTP audio pulled; RTMP and SRT
# pushed; HTTP API on 8084, /health, /metrics). Debian's ffmpeg decodes each source (with libsrt),
# a private nginx with Debian's RTMP module is the RTMP push listener (1935), and SRT push sources
# listen on UDP 9000-9015, one port each. The system packages come first, so that a code change
# rebuilds only the last layers. PostgreSQL with DATABASE_URL, else PGlite under SOURCES_DATA_DIR.
FROM node:${NODE_VERSION}-bookworm-slim AS sources
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ffmpeg nginx-light libnginx-mod-rtmp ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && test -f /usr/lib/nginx/modules/ngx_rtmp_module.so \
 && mkdir -p /data/sources && chown 1000:1000 /data/sources
ENV NODE_ENV=production SOURCES_BIND=0.0.0.0 SOURCES_PORT=8084 SOURCES_PUSH_BIND=0.0.0.0 \
    SOURCES_DATA_DIR=/data/sources CAPTION_RELAY_CONFIG=/run/secrets/relay.private.json \
    CAPTION_LOCAL_ENV_FILE=/run/secrets/caption-local.env
WORKDIR /app
COPY --from=build /out /app
COPY compose/healthcheck.mjs /app/healthcheck.mjs
USER 1000:1000
EXPOSE 8084
# The push listeners: RTMP (TCP) and the SRT sources' UDP ports (SOURCES_RTMP_PORT, SOURCES_SRT_PORTS).
EXPOSE 1935 9000-9015/udp
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD node /app/healthcheck.mjs http "http://127.0.0.1:${SOURCES_PORT}/health"
CMD ["node", "dist/index.js"]
