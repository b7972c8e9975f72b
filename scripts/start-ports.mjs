// The ports of `pnpm start`, one setting each, and what the services must be told so that the
// addresses and the browser origins follow a moved port. Each service already listens on its own
// *_PORT; what it does not know is where the others are (the UI's site config, the gateway's
// relay settings, the relay's and the services' allowed origins), which this derives.

/** Each setting and its port when unset. */
export const PORT_DEFAULTS = {
  CAPTION_PORT: 8765, // speech gateway: the capture page
  RELAY_PORT: 8080,
  UI_PORT: 8081, // links hub, editor, overlay, audience
  CALENDAR_PORT: 8082,
  OUTPUTS_PORT: 8083,
  SOURCES_PORT: 8084,
  SOURCES_RTMP_PORT: 1935, // the stream sources' RTMP push listener
  APERTIUM_PORT: 2737, // Apertium APy, run by `pnpm start` (this script's own setting)
};

/** The ports from the environment; throws one line per wrong or repeated setting. */
export function stackPorts(env) {
  const ports = {};
  const problems = [];
  for (const [name, fallback] of Object.entries(PORT_DEFAULTS)) {
    const text = env[name]?.trim();
    const port = text ? Number(text) : fallback;
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      problems.push(`${name}=${JSON.stringify(env[name])}: must be a port number (1-65535)`);
    ports[name] = port;
  }
  const seen = new Map();
  for (const [name, port] of Object.entries(ports)) {
    if (seen.has(port))
      problems.push(`${name} and ${seen.get(port)} are both ${port}: give each its own port`);
    else seen.set(port, name);
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return ports;
}

/** `http://localhost:<port>` and `http://127.0.0.1:<port>`: a browser may open either. */
const origins = (port) => [`http://localhost:${port}`, `http://127.0.0.1:${port}`];

/**
 * What each service is told beyond the shared environment (the operator's own variables still
 * win). With the default ports these are the services' own defaults, and what the generated
 * secrets say is left to them (an operator may have edited those files); a moved port moves every
 * address and origin that names it. `captionLocal`: the variables of `caption-local.env`, whose
 * allowed origins are kept beside the moved UI's.
 */
export function serviceEnv(ports, captionLocal = {}) {
  const env = derivedEnv(ports, captionLocal);
  // Each service listens on its own setting (the operator's, or the default said here).
  for (const [name, setting] of Object.entries(LISTENS_ON))
    env[name] = { ...env[name], [setting]: String(ports[setting]) };
  env.sources.SOURCES_RTMP_PORT = String(ports.SOURCES_RTMP_PORT);
  return env;
}

const LISTENS_ON = {
  speech: 'CAPTION_PORT',
  relay: 'RELAY_PORT',
  ui: 'UI_PORT',
  calendar: 'CALENDAR_PORT',
  outputs: 'OUTPUTS_PORT',
  sources: 'SOURCES_PORT',
};

function derivedEnv(ports, captionLocal) {
  const ui = origins(ports.UI_PORT).join(',');
  const relayLoopback = `ws://127.0.0.1:${ports.RELAY_PORT}/ws`;
  const moved = (name) => ports[name] !== PORT_DEFAULTS[name];
  const fileOrigins = (captionLocal.CAPTION_ALLOWED_ORIGINS ?? '').split(',').map((o) => o.trim());
  const speechOrigins = [...new Set([...fileOrigins, ...origins(ports.UI_PORT)])].filter(Boolean);
  return {
    // The caption rooms made from the hub: PGlite in data/relay (the relay alone opens it; the
    // other services read rooms from the relay's API). Browsers reach it from the UI's pages and
    // the capture page: their origins, added to the generated file's.
    relay: {
      RELAY_DATA_DIR: 'data/relay',
      RELAY_ALLOWED_ORIGINS: [...origins(ports.UI_PORT), ...origins(ports.CAPTION_PORT)].join(','),
    },
    // The links hub reads /relay-config cross-origin; what it hands out names the relay and the
    // UI where they really are (over the generated relay-tokens.env).
    speech: {
      RELAY_URL: relayLoopback,
      ...(moved('UI_PORT')
        ? {
            CAPTION_ALLOWED_ORIGINS: speechOrigins.join(','),
            RELAY_SITE: `http://localhost:${ports.UI_PORT}/`,
          }
        : {}),
      ...(moved('RELAY_PORT') ? { RELAY_ADDRESS: `ws://localhost:${ports.RELAY_PORT}/ws` } : {}),
    },
    // /site-config.js: where the pages find the others.
    ui: {
      RELAY_URL: `ws://localhost:${ports.RELAY_PORT}/ws`,
      CAPTURE_URL: `http://localhost:${ports.CAPTION_PORT}/`,
      OUTPUTS_URL: `http://localhost:${ports.OUTPUTS_PORT}/`,
      SOURCES_URL: `http://localhost:${ports.SOURCES_PORT}/`,
      // Another origin here: the calendar answers its public reads to any origin (CORS), as
      // WordPress does.
      CALENDAR_API_URL: `http://localhost:${ports.CALENDAR_PORT}/wp-json/cal/events/v1/`,
    },
    // The editor and the links hub call these two cross-origin here, where no proxy makes them
    // same-origin.
    outputs: {
      RELAY_URL: relayLoopback,
      OUTPUTS_ALLOWED_ORIGINS: ui,
      OUTPUTS_APERTIUM_URL: `http://127.0.0.1:${ports.APERTIUM_PORT}`,
    },
    sources: {
      RELAY_URL: relayLoopback,
      CAPTION_URL: `http://127.0.0.1:${ports.CAPTION_PORT}`,
      SOURCES_ALLOWED_ORIGINS: ui,
      // The schedule: the calendar it reads, the archive it conducts, the links it writes.
      SOURCES_CALENDAR_URL: `http://127.0.0.1:${ports.CALENDAR_PORT}/wp-json/cal/events/v1/`,
      SOURCES_OUTPUTS_URL: `http://127.0.0.1:${ports.OUTPUTS_PORT}/`,
      SOURCES_PUBLIC_OUTPUTS_URL: `http://localhost:${ports.OUTPUTS_PORT}/`,
      SOURCES_PUBLIC_UI_URL: `http://localhost:${ports.UI_PORT}/`,
    },
  };
}
