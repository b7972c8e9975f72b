#!/bin/sh
# Renders the static configuration with CERT_EMAIL, then runs Traefik. Traefik reads its static
# settings from one source only (file, flags or environment), hence the rendering.
set -eu

email="${CERT_EMAIL:-}"
# A plain address only: this also keeps the sed replacement below free of special characters.
if ! printf '%s' "$email" | grep -Eq '^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$'; then
  echo "CERT_EMAIL must be a plain e-mail address for the Let's Encrypt account (got '${email}')" >&2
  exit 1
fi

sed "s|\${CERT_EMAIL}|${email}|g" /etc/traefik/traefik.yml > /tmp/traefik.yml
exec traefik --configFile=/tmp/traefik.yml "$@"
