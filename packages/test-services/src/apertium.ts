/**
 * A real Apertium APy (Debian's `apertium-apy` with the installed pairs of
 * /usr/share/apertium/modes) on a free loopback port, for tests and benchmarks. It runs through
 * @live-captions/apertium, as `pnpm start` does, so that it listens on 127.0.0.1 only. APy
 * and the translation pipelines it starts form their own process group: stopping or killing it
 * ends them all, and their CPU time is measured together.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { apertiumCommand, apertiumPython } from '@live-captions/apertium';
import { childExit } from './child-output.js';
import { freePort } from './free-port.js';
import { processGroupCpuSeconds } from './process-cpu.js';
import { PROGRAMS, requirePrograms } from './system.js';

export interface ApertiumServer {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly running: boolean;
  /** Starts it again on the same port (after stop or kill). */
  start(): Promise<void>;
  /** SIGTERM to APy and its pipelines; resolves once APy has exited. */
  stop(): Promise<void>;
  /** SIGKILL: a crash. */
  kill(): Promise<void>;
  /** CPU seconds of APy and its pipelines since this start (a restart begins again at 0). */
  cpuSeconds(): number;
  /** What it printed (its log), for failure messages. */
  output(): string;
}

export { apertiumPython };

async function waitForPairs(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error('apertium-apy exited');
    try {
      const response = await fetch(`${url}/listPairs`, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`apertium-apy did not answer /listPairs within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts APy on a free loopback port (or `port`) and resolves once `/listPairs` answers. */
export async function startApertium(
  options: { port?: number; args?: string[] } = {},
): Promise<ApertiumServer> {
  requirePrograms([PROGRAMS.apertium, PROGRAMS.apertiumEngSpa, PROGRAMS.apertiumEngCat]);
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let text = '';

  async function start(): Promise<void> {
    if (child) return;
    const apy = apertiumCommand({ address: '127.0.0.1', port, args: options.args });
    const proc = spawn(
      apy.command,
      apy.args,
      // Its own process group (detached): the pipelines it starts are signalled with it. APy may
      // write files (missing-word databases) into its working directory: a temporary one.
      { cwd: tmpdir(), stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    child = proc;
    exited = childExit(proc, (chunk) => {
      text = (text + chunk).slice(-20_000);
    }).then(() => {
      if (child === proc) child = undefined;
    });
    try {
      await waitForPairs(url, proc, 30_000);
    } catch (error) {
      signal('SIGKILL');
      await exited;
      throw new Error(`${(error as Error).message}\n${text}`);
    }
  }

  function signal(name: NodeJS.Signals): void {
    if (!child?.pid) return;
    try {
      process.kill(-child.pid, name);
    } catch {
      // already gone
    }
  }

  async function stopWith(name: NodeJS.Signals): Promise<void> {
    if (!child) return;
    const pid = child.pid!;
    signal(name);
    await exited;
    // Pipelines that outlived APy (a SIGTERM leaves them to it) go too.
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // none left
    }
  }

  await start();
  return {
    port,
    url,
    get running() {
      return child !== undefined;
    },
    start,
    stop: () => stopWith('SIGTERM'),
    kill: () => stopWith('SIGKILL'),
    cpuSeconds: () => (child?.pid ? processGroupCpuSeconds(child.pid) : 0),
    output: () => text,
  };
}
