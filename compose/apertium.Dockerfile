# Apertium APy, the self-hosted translation engine of the outputs service (issue 34): Debian's
# `apertium-apy` and language pairs, nothing built. Build context = repo root.
#   docker build -f compose/apertium.Dockerfile -t live-captions/apertium .
#   docker build -f compose/apertium.Dockerfile \
#     --build-arg APERTIUM_PAIRS="apertium-eng-spa apertium-eng-cat apertium-fra-cat" -t ... .
# APERTIUM_PAIRS: the Debian packages of the pairs to serve (`apt-cache search apertium-` lists
# them; each installs its modes into /usr/share/apertium/modes, which APy serves). English to
# Spanish and to Catalan are the ones the project tests.
FROM debian:bookworm-slim
ARG APERTIUM_PAIRS="apertium-eng-spa apertium-eng-cat"
# The package's postinst makes the unprivileged system user `apertium` the service runs as.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends apertium-apy ${APERTIUM_PAIRS} \
 && rm -rf /var/lib/apt/lists/* \
 && ls /usr/share/apertium/modes/*.mode >/dev/null
COPY compose/apertium-health.py /usr/local/bin/apertium-health
# APy through the launcher `pnpm start` uses: its access log without the query strings, which
# carry the captions being translated.
COPY packages/apertium/src/apertium-loopback.py /usr/local/lib/apertium-serve.py
# Python reads and writes the pipelines' text as UTF-8 whatever the host's locale.
ENV LC_ALL=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 APERTIUM_PORT=2737
# APy may write files where it runs (a missing-word database, when asked to): /tmp, in memory.
WORKDIR /tmp
USER apertium
EXPOSE 2737
# Healthy once it answers /listPairs with at least one pair.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["python3", "/usr/local/bin/apertium-health"]
# Every interface of the container: compose keeps it on an internal network, never published.
CMD ["sh", "-c", "exec python3 /usr/local/lib/apertium-serve.py 0.0.0.0 -p \"$APERTIUM_PORT\" /usr/share/apertium/modes"]
