import { LOOPBACK_HOSTS, relayUrlProblem } from '@live-captions/http';
import { relayHttpUrl } from '@live-captions/protocol';
import { ConfigError, issueLine, parseEnvInto, portVar } from '@live-captions/runtime';
import { z } from 'zod';

/** Local defaults of the two public addresses (production sets both from the hostnames). */
export const DEFAULT_RELAY_URL = 'ws://localhost:8080/ws';
export const DEFAULT_CAPTURE_URL = 'http://localhost:8765/';
export const DEFAULT_OUTPUTS_URL = 'http://localhost:8083/';
export const DEFAULT_SOURCES_URL = 'http://localhost:8084/';
/**
 * The local calendar's events API (The Events Calendar REST v1 under our namespace). Production
 * sets `https://UI_HOST/wp-json/cal/events/v1/`: the calendar is routed on the UI host.
 */
export const DEFAULT_CALENDAR_API_URL = 'http://localhost:8082/wp-json/cal/events/v1/';

export interface UiConfig {
  bind: string;
  port: number;
  /** RELAY_URL: the relay WebSocket address written into /site-config.js; null when set empty. */
  relayUrl: string | null;
  /** CAPTURE_URL: capture host with trailing slash; null (set empty) makes `/` the landing page. */
  captureUrl: string | null;
  /** OUTPUTS_URL: the outputs service's base with trailing slash; null (set empty): no destinations panel. */
  outputsUrl: string | null;
  /** SOURCES_URL: the stream sources service's base with trailing slash; null (set empty): no sources panel. */
  sourcesUrl: string | null;
  /**
   * RELAY_API_URL: the relay's HTTP API base with trailing slash (the caption rooms: the links
   * hub's board, the public "captioning now" page); null: no rooms on these pages.
   */
  relayApiUrl: string | null;
  /**
   * CALENDAR_API_URL: the calendar's events REST API base with trailing slash (`venues`,
   * `events`: the rooms' venues and talks on the board and the public page); null: no talks.
   */
  calendarApiUrl: string | null;
}

const schema = z.object({
  UI_BIND: z.string().min(1).default('127.0.0.1'),
  UI_PORT: portVar().default(8081),
});

/** Unset: the default; set empty: null; otherwise checked by `check` (returns the problem). */
function address(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: string,
  check: (value: string) => string | undefined,
  issues: string[],
): string | null {
  const raw = env[name];
  if (raw === undefined) return fallback;
  const value = raw.trim();
  if (value === '') return null;
  const problem = check(value);
  if (problem) issues.push(issueLine(name, value, problem));
  return value;
}

/** The check of a page-facing http(s) base address such as `https://capture.example.org/`. */
function httpBaseProblem(host: string): (raw: string) => string | undefined {
  return (raw) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return 'is not a URL';
    }
    return url.protocol !== 'http:' && url.protocol !== 'https:'
      ? `must be an http(s) URL (e.g. https://${host}.example.org/)`
      : url.username || url.password || url.search || url.hash
        ? 'must not carry userinfo, query or fragment'
        : !raw.endsWith('/')
          ? `must end with a slash (e.g. https://${host}.example.org/)`
          : undefined;
  };
}

/**
 * RELAY_API_URL's default: the relay's own HTTP origin when RELAY_URL is on loopback (the local
 * stack, where the WebSocket and the API share a port). A public relay is reached through a proxy
 * path (production: `https://UI_HOST/relay/`) this service cannot guess, so there it is null.
 */
export function defaultRelayApiUrl(relayUrl: string | null): string | null {
  if (!relayUrl || relayUrlProblem(relayUrl)) return null;
  const url = new URL(relayUrl);
  if (!LOOPBACK_HOSTS.has(url.hostname) && !/^127\./.test(url.hostname)) return null;
  return `${relayHttpUrl(relayUrl)}/`;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): UiConfig {
  const issues: string[] = [];
  const vars = parseEnvInto(issues, schema, env);
  const relayUrl = address(env, 'RELAY_URL', DEFAULT_RELAY_URL, (value) => relayUrlProblem(value), issues);
  const captureUrl = address(env, 'CAPTURE_URL', DEFAULT_CAPTURE_URL, httpBaseProblem('capture'), issues);
  const outputsUrl = address(env, 'OUTPUTS_URL', DEFAULT_OUTPUTS_URL, httpBaseProblem('ui'), issues);
  const sourcesUrl = address(env, 'SOURCES_URL', DEFAULT_SOURCES_URL, httpBaseProblem('ui'), issues);
  const relayApiUrl = address(
    env,
    'RELAY_API_URL',
    defaultRelayApiUrl(relayUrl) ?? '',
    httpBaseProblem('ui'),
    issues,
  );
  const calendarApiUrl = address(
    env,
    'CALENDAR_API_URL',
    DEFAULT_CALENDAR_API_URL,
    httpBaseProblem('ui'),
    issues,
  );
  if (issues.length > 0 || !vars) throw new ConfigError(issues);
  return {
    bind: vars.UI_BIND,
    port: vars.UI_PORT,
    relayUrl,
    captureUrl,
    outputsUrl,
    sourcesUrl,
    relayApiUrl: relayApiUrl || null,
    calendarApiUrl,
  };
}
