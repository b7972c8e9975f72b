# Operator shortcuts. Production: `make secrets up` on a host with Docker (Compose v2) and
# .env.production filled in; see the Production section of README.md.
#
#   make secrets        secrets/ for .env.production's hosts (never overwrites a file)
#   make up | down | logs | ps
#   make gpu-up         worker on the NVIDIA GPU (compose.gpu.yaml)
#   make auth-up        Basic Auth in front of the UI and the dashboard (compose.auth.yaml)
#   make up OVERLAYS="gpu auth"   any combination
#   make local-up       the containers on 127.0.0.1 without Traefik (compose.local.yaml)
#   make model MODEL=base   download a model into ./models (for `make dev`)
#   make test | dev     the test suite | the stack from source (`pnpm start`)

ENV_FILE ?= .env.production
# Where `make secrets` writes; compose always mounts secrets/.
SECRETS_DIR ?= secrets
PROJECT ?= live-captions
OVERLAYS ?=
DOCKER_COMPOSE ?= docker compose
MODEL ?= base
SERVICE ?=
AUTH_USER ?= operator

COMPOSE = $(DOCKER_COMPOSE) -p $(PROJECT) --env-file $(ENV_FILE) -f compose/compose.yaml \
	$(foreach overlay,$(OVERLAYS),-f compose/compose.$(overlay).yaml)

# Without a local `pnpm install`, the generator runs in a throwaway Node container.
ifneq ($(wildcard node_modules/.bin/tsx),)
SECRETS_INIT = pnpm secrets:init
else
SECRETS_INIT = docker run --rm -v "$(CURDIR)":/repo -w /repo node:20-bookworm-slim npx --yes tsx@4 scripts/secrets-init.ts
endif

.PHONY: secrets htpasswd model up down logs ps gpu-up auth-up local-up test dev

## Secrets: relay config, relay-tokens.env and caption-local.env for the hosts of $(ENV_FILE),
## plus the PostgreSQL password. Run it as root (sudo) so that the files belong to uid 1000 (the
## relay, speech and calendar images) and, for the password, group 70 (PostgreSQL).
secrets:
	$(SECRETS_INIT) --dir $(SECRETS_DIR) $(if $(ENV_FILE),--env-file $(ENV_FILE))
	@password=$(SECRETS_DIR)/postgres-password; \
	if [ -e $$password ]; then \
	  echo "kept  $$password (exists; never overwritten)"; \
	else \
	  (umask 077; od -An -N24 -tx1 /dev/urandom | tr -d ' \n' > $$password); \
	  if [ "$$(id -u)" = 0 ]; then chown 1000:70 $$password; chmod 0440 $$password; \
	  else echo "note: not root - the containers may not be able to read $(SECRETS_DIR)/ (run: sudo make secrets)"; fi; \
	  echo "wrote $$password"; \
	fi

## Adds a Basic Auth user to secrets/traefik.htpasswd (bcrypt with htpasswd, else apr1 with openssl).
htpasswd:
	@touch $(SECRETS_DIR)/traefik.htpasswd && chmod 0640 $(SECRETS_DIR)/traefik.htpasswd
	@if command -v htpasswd >/dev/null; then htpasswd -B $(SECRETS_DIR)/traefik.htpasswd "$(AUTH_USER)"; \
	else printf '%s:%s\n' "$(AUTH_USER)" "$$(openssl passwd -apr1)" >> $(SECRETS_DIR)/traefik.htpasswd; fi

model:
	pnpm model $(MODEL)

up:
	$(COMPOSE) up -d --build

down:
	$(COMPOSE) down

logs:
	$(COMPOSE) logs -f --tail=200 $(SERVICE)

ps:
	$(COMPOSE) ps

gpu-up:
	$(MAKE) up OVERLAYS="$(filter-out gpu,$(OVERLAYS)) gpu"

auth-up:
	@test -s $(SECRETS_DIR)/traefik.htpasswd || { echo "secrets/traefik.htpasswd is missing: run make htpasswd"; exit 1; }
	$(MAKE) up OVERLAYS="$(filter-out auth,$(OVERLAYS)) auth"

local-up:
	$(MAKE) up ENV_FILE=compose/local.env PROJECT=$(PROJECT)-local OVERLAYS=local

test:
	pnpm test

dev:
	pnpm start
