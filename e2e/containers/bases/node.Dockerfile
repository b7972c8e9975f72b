# Stand-in for the official node:<major>-bookworm-slim (see ../prepare.sh): the same layout -
# node in /usr/local/bin, npm and corepack in /usr/local/lib/node_modules, user node 1000:1000.
FROM debian:bookworm-slim
ARG NODE_VERSION
# Node reads its own CA list, not /etc/ssl/certs: the stand-in's registry access through this
# network's TLS inspection needs the host bundle named (the official image has no such line).
ENV NODE_VERSION=${NODE_VERSION} NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
RUN groupadd --gid 1000 node \
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
COPY node/bin/node /usr/local/bin/node
COPY node/include /usr/local/include
COPY lib/npm /usr/local/lib/node_modules/npm
COPY lib/corepack /usr/local/lib/node_modules/corepack
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && ln -s ../lib/node_modules/corepack/dist/corepack.js /usr/local/bin/corepack \
 && node --version && npm --version && corepack --version
CMD ["node"]
