#!/bin/sh
# Renders the static configuration with CERT_EMAIL, then runs Traefik. Traefik reads its static
# settings from one source only (file, flags or environment), hence the rendering.
set -eu

template="${STATIC_TEMPLATE:-/etc/traefik/traefik.yml}"
rendered="${STATIC_CONFIG:-/tmp/traefik.yml}"
email="${CERT_EMAIL:-}"

refuse() {
  echo "CERT_EMAIL must be a plain e-mail address for the Let's Encrypt account (got '${email}')" >&2
  exit 1
}
# A plain address only: this also keeps the sed replacement below free of special characters
# (the case rejects any other character, newlines included; grep checks the shape).
case "$email" in
  '' | *[!A-Za-z0-9._%+@-]*) refuse ;;
esac
printf '%s' "$email" | grep -Eq '^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$' || refuse

sed "s|\${CERT_EMAIL}|${email}|g" "$template" > "$rendered"
exec traefik --configFile="$rendered" "$@"
