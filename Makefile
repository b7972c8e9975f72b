# Operator shortcuts. Production: `sudo make secrets up` on a host with Docker and .env.production
# filled in (cp .env.production.example .env.production); see the Production section of README.md.
#
#   make secrets        secrets/ for .env.production's hosts (never overwrites a file)
#   make build          the service images, one at a time (a small VPS cannot build five at once);
#                       IMAGES=apertium for one (e.g. after adding APERTIUM_PAIRS to .env.production)
#   make up | down | logs | ps
#   make gpu-up         worker on the NVIDIA GPU (compose.gpu.yaml)
#   make auth-up        Basic Auth in front of the UI and the dashboard (compose.auth.yaml)
#   make up OVERLAYS="gpu auth"   any combination
#   make local-secrets  secrets/local/ (loopback origins) for the local trial
#   make local-up | local-down | local-logs | local-ps   the containers on 127.0.0.1 without
#                       Traefik (compose.local.yaml), project live-captions-local: no state shared
#                       with production
#   make model MODEL=base   download a model into ./models (for `make dev`)
#   make test | dev     the test suite | the stack from source (`pnpm start`)

ENV_FILE ?= .env.production
# Where `make secrets` writes; compose mounts secrets/ (production) or secrets/local/ (local).
SECRETS_DIR ?= secrets
PROJECT ?= live-captions
OVERLAYS ?=
# Compose v2 (the plugin get.docker.com installs), else the standalone docker-compose (Debian's).
DOCKER_COMPOSE ?= $(shell docker compose version >/dev/null 2>&1 && echo "docker compose" || echo docker-compose)
# The Node image of the secrets generator when there is no local `pnpm install`.
NODE_IMAGE ?= node:24-bookworm-slim
# Built in this order, one at a time: the worker (whisper.cpp) first. sources: the stream sources
# service (Debian's ffmpeg and nginx-rtmp; RTMP 1935/tcp and SRT 9000-9015/udp published on the
# host); apertium: Apertium APy with the pairs of APERTIUM_PAIRS, on the internal translation
# network only (compose/README.md).
IMAGES ?= worker speech relay ui calendar outputs sources apertium
MODEL ?= base
SERVICE ?=
AUTH_USER ?= operator

COMPOSE = $(DOCKER_COMPOSE) -p $(PROJECT) --env-file $(ENV_FILE) -f compose/compose.yaml \
	$(foreach overlay,$(OVERLAYS),-f compose/compose.$(overlay).yaml)
LOCAL = $(MAKE) ENV_FILE=compose/local.env PROJECT=$(PROJECT)-local OVERLAYS=local

# Without a local `pnpm install`, the generator runs in a throwaway Node container.
ifneq ($(wildcard node_modules/.bin/tsx),)
SECRETS_INIT = pnpm secrets:init
else
SECRETS_INIT = docker run --rm -v "$(CURDIR)":/repo -w /repo $(NODE_IMAGE) npx --yes tsx@4 packages/secret-files/scripts/init.ts
endif

.PHONY: env-file secrets htpasswd model build up down logs ps gpu-up auth-up \
	local-secrets local-up local-down local-logs local-ps test dev

env-file:
	@test -z "$(ENV_FILE)" -o -f "$(ENV_FILE)" || { \
	  echo "$(ENV_FILE) is missing: cp .env.production.example .env.production, then set the hosts"; exit 1; }

## Secrets: relay config, relay-tokens.env and caption-local.env for the hosts of $(ENV_FILE),
## plus the PostgreSQL password and the calendar's (empty) writer tokens. Run it as root (sudo)
## so that the files belong to uid 1000 (the relay, speech and calendar images) and, for the
## password, group 70 (PostgreSQL).
secrets: env-file
	$(SECRETS_INIT) --dir $(SECRETS_DIR) $(if $(ENV_FILE),--env-file $(ENV_FILE))
	@tokens=$(SECRETS_DIR)/calendar-tokens.json; \
	if [ -e $$tokens ]; then \
	  echo "kept  $$tokens (exists; never overwritten)"; \
	else \
	  (umask 077; echo '{}' > $$tokens); \
	  if [ "$$(id -u)" = 0 ]; then chown 1000:1000 $$tokens; chmod 0640 $$tokens; fi; \
	  echo "wrote $$tokens"; \
	fi
	@password=$(SECRETS_DIR)/postgres-password; \
	if [ -e $$password ]; then \
	  echo "kept  $$password (exists; never overwritten)"; \
	else \
	  (umask 077; od -An -N24 -tx1 /dev/urandom | tr -d ' \n' > $$password); \
	  if [ "$$(id -u)" = 0 ]; then chown 1000:70 $$password; chmod 0440 $$password; \
	  else echo "note: not root - the containers may not be able to read $(SECRETS_DIR)/ (run: sudo make secrets)"; fi; \
	  echo "wrote $$password"; \
	fi

## Adds a Basic Auth user to secrets/traefik.htpasswd, bcrypt-hashed (htpasswd from apache2-utils).
htpasswd:
	@command -v htpasswd >/dev/null || { echo "htpasswd is missing: sudo apt-get install -y apache2-utils"; exit 1; }
	@touch $(SECRETS_DIR)/traefik.htpasswd && chmod 0640 $(SECRETS_DIR)/traefik.htpasswd
	htpasswd -B -C 10 $(SECRETS_DIR)/traefik.htpasswd "$(AUTH_USER)"

model:
	pnpm model $(MODEL)

build: env-file
	@for image in $(IMAGES); do echo "== $$image"; $(COMPOSE) build $$image || exit 1; done

up: build
	$(COMPOSE) up -d

down: env-file
	$(COMPOSE) down

logs: env-file
	$(COMPOSE) logs -f --tail=200 $(SERVICE)

ps: env-file
	$(COMPOSE) ps

gpu-up:
	$(MAKE) up OVERLAYS="$(filter-out gpu,$(OVERLAYS)) gpu"

auth-up:
	@test -s $(SECRETS_DIR)/traefik.htpasswd || { echo "secrets/traefik.htpasswd is missing: run make htpasswd"; exit 1; }
	$(MAKE) up OVERLAYS="$(filter-out auth,$(OVERLAYS)) auth"

local-secrets:
	$(MAKE) secrets ENV_FILE= SECRETS_DIR=secrets/local

local-up:
	@test -s secrets/local/relay.private.json || { echo "secrets/local/ is missing: run make local-secrets"; exit 1; }
	$(LOCAL) up

local-down:
	$(LOCAL) down

local-logs:
	$(LOCAL) logs

local-ps:
	$(LOCAL) ps

test:
	pnpm test

dev:
	pnpm start
