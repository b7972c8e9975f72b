#!/usr/bin/env bash
# `pnpm test:containers`: prepares Docker and the base images (prepare.sh), builds the synthetic
# model, runs the container suite, and stops the dockerd it started, if any. Needs root.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "test:containers needs root (it installs packages and runs dockerd)" >&2; exit 1; }
started=""
stop_dockerd() {
  if [ -n "$started" ] && kill -0 "$started" 2>/dev/null; then
    kill "$started"
    for _ in $(seq 1 30); do kill -0 "$started" 2>/dev/null || break; sleep 1; done
  fi
}
trap stop_dockerd EXIT
prepared="$(bash e2e/containers/prepare.sh)"
started="$(printf '%s\n' "$prepared" | sed -n 's/^started-dockerd //p')"
pnpm fixtures
pnpm model:synthetic
NODE_OPTIONS='--experimental-vm-modules --no-warnings' pnpm exec jest -c e2e/containers/jest.config.js "$@"
