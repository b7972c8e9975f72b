/**
 * The relay and the UI service started from the sources the way every browser-driven suite needs
 * them (browser stack, audience, OBS): free ports, the relay files `pnpm secrets:init` writes (from
 * the same writers) in `dir`, the relay restartable.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newToken, type RelaySecrets, relayConfigText, relayTokensText } from '@live-captions/secret-files';
import { freePort, type ServiceProcess, startService, until } from '../deploy/helpers/processes.js';

export interface RelayUi {
  relayUrl: string;
  uiOrigin: string;
  secrets: RelaySecrets;
  tokens: RelaySecrets['tokens'];
  /** The relay and ui processes as they are now (the relay changes on a restart). */
  processes(): ServiceProcess[];
  /** Resolves once both answer /health (30 s each). */
  ready(): Promise<void>;
  /** Stops the relay and starts it again after `downMs` (an outage that long). */
  restartRelay(downMs?: number): Promise<void>;
  /** Sends the relay process a signal: SIGSTOP freezes it (its sockets stay open), SIGCONT thaws it. */
  signalRelay(signal: NodeJS.Signals): void;
  stop(): Promise<void>;
}

export interface RelayUiOptions {
  /** Where the relay's files go (the caller removes it). */
  dir: string;
  rooms: { source: string; output: string };
  /** Origins besides the ui's allowed to open the relay (the capture host). */
  origins?: string[];
  /** The UI service's CAPTURE_URL ('' for none) and any other settings of it. */
  uiEnv: Record<string, string>;
  /** More settings of the relay (its rooms store: RELAY_DATA_DIR, CAPTION_API_KEY). */
  relayEnv?: Record<string, string>;
}

/** Writes the relay's files and starts both services; `ready()` waits for them. */
export async function startRelayUi(options: RelayUiOptions): Promise<RelayUi> {
  const [relayPort, uiPort] = [await freePort(), await freePort()];
  const uiOrigin = `http://127.0.0.1:${uiPort}`;
  const relayUrl = `ws://127.0.0.1:${relayPort}/ws`;
  const tokens = {
    sourceRead: newToken(),
    sourceWrite: newToken(),
    outputRead: newToken(),
    outputWrite: newToken(),
  };
  const secrets: RelaySecrets = {
    origins: [...(options.origins ?? []), uiOrigin],
    sourceRoom: options.rooms.source,
    outputRoom: options.rooms.output,
    tokens,
    relayAddress: relayUrl,
    relaySite: `${uiOrigin}/`,
  };
  writeFileSync(join(options.dir, 'relay.private.json'), relayConfigText(secrets));
  writeFileSync(join(options.dir, 'relay-tokens.env'), relayTokensText(secrets));
  const relayEnv = {
    LOG_LEVEL: 'warn',
    RELAY_BIND: '127.0.0.1',
    RELAY_PORT: String(relayPort),
    CAPTION_RELAY_CONFIG: join(options.dir, 'relay.private.json'),
    ...options.relayEnv,
  };
  let relay = startService('relay', relayEnv);
  const ui = startService('ui', {
    LOG_LEVEL: 'warn',
    UI_BIND: '127.0.0.1',
    UI_PORT: String(uiPort),
    RELAY_URL: relayUrl,
    // No stream sources service in these stacks: the hub's sources panel stays hidden (its
    // default address could reach another stack's service on this machine).
    SOURCES_URL: '',
    // Nor a calendar: its default address could be another stack's calendar on this machine.
    CALENDAR_API_URL: '',
    // A relay without a rooms store has no rooms API: the hub's rooms board stays hidden rather
    // than asking it (a refused cross-origin request is a console error the suites count).
    ...(options.relayEnv?.RELAY_DATA_DIR ? {} : { RELAY_API_URL: '' }),
    ...options.uiEnv,
  });
  // A start, not a speed: tsx and the rooms store's PGlite can take over 30 s on a loaded machine
  // (the full suite beside other builds left the relay's log empty at 30 s).
  const relayReady = () =>
    until('the relay', async () => (await fetch(`http://127.0.0.1:${relayPort}/health`)).ok, 90_000);
  return {
    relayUrl,
    uiOrigin,
    secrets,
    tokens,
    processes: () => [relay, ui],
    async ready() {
      await relayReady();
      await until('the ui', async () => (await fetch(`${uiOrigin}/health`)).ok, 90_000);
    },
    async restartRelay(downMs = 0) {
      await relay.stop();
      if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
      relay = startService('relay', relayEnv);
      await relayReady();
    },
    signalRelay(signal) {
      relay.child.kill(signal);
    },
    async stop() {
      // A frozen relay would not hear SIGTERM.
      relay.child.kill('SIGCONT');
      await Promise.all([relay, ui].map((service) => service.stop()));
    },
  };
}

/** The processes' output, each under its name, for a failure message. */
export const processLogs = (processes: { name: string; output(): string }[]) =>
  processes.map((p) => `--- ${p.name}\n${p.output()}`).join('\n');
