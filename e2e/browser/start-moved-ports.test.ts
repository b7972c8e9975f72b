/**
 * Issue 43.1 ("A volunteer's first event"): `pnpm start` with every port it uses moved, one
 * setting each (scripts/start-ports.mjs), in chromium. The link it prints opens the links hub on
 * the moved UI port, which fills itself in from the moved gateway (its origin allowed there) with
 * the relay at its moved port; the Stream sources panel and the Caption rooms board load with no
 * red line (the sources service and the relay let the moved UI in); the overlay's link joins the
 * relay and the capture page on the moved gateway port joins it with the settings it fills in.
 * Free ports only: it never touches the default ports of start-stack.test.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, jest, test } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { freePort, until } from '../deploy/helpers/processes.js';
import { launchBrowser, watchErrors } from './browser.js';
import { ROOT } from './stack.js';

jest.setTimeout(600_000);

/** A person's shell: not jest's (NODE_ENV=test silences the logs), nor its services' settings. */
const shell = Object.fromEntries(
  Object.entries(process.env).filter(
    ([key]) =>
      !/^(NODE_ENV|JEST_|REDIS_URL|DATABASE_URL|PG|CAPTION_|RELAY_|UI_|CALENDAR_|WORKER_|OUTPUTS_|SOURCES_|APERTIUM_|LOG_LEVEL)/.test(
        key,
      ),
  ),
);

let child: ChildProcess | undefined;
let exited: Promise<unknown> | undefined;
let browser: Browser | undefined;
let output = '';

afterAll(async () => {
  await browser?.close();
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await exited;
  }
});

describe('pnpm start with every port moved', () => {
  test('the hub, its panels, the overlay and the capture page all find each other at the new ports', async () => {
    const ports: Record<string, number> = {};
    for (const name of [
      'CAPTION_PORT',
      'RELAY_PORT',
      'UI_PORT',
      'CALENDAR_PORT',
      'OUTPUTS_PORT',
      'SOURCES_PORT',
      'SOURCES_RTMP_PORT',
      'APERTIUM_PORT',
    ])
      ports[name] = await freePort();
    const srt = await freePort();
    child = spawn(process.execPath, [join(ROOT, 'scripts/start-stack.mjs')], {
      cwd: ROOT,
      env: {
        ...shell,
        ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
        SOURCES_SRT_PORTS: `${srt}-${srt}`,
        CAPTION_MODEL: join(ROOT, 'models/ggml-synthetic-tiny.bin'),
        CAPTION_OFFLINE: '1',
        CAPTION_THREADS: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-200_000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    exited = new Promise((resolve) => child!.once('exit', resolve));
    await until('the summary', () => /Live captions is running/.test(output), 480_000).catch(
      (error: Error) => {
        throw new Error(`${error.message}\n${output}`);
      },
    );
    const hubLink = /links hub\s+(\S+)/.exec(output)?.[1] ?? '';
    expect(hubLink).toMatch(new RegExp(`^http://localhost:${ports.UI_PORT}/#token=[A-Za-z0-9_-]{32,}$`));
    const apiKey = new URL(hubLink).hash.slice('#token='.length);

    browser = await launchBrowser('/dev/null');
    const context = await browser.newContext();
    const hub = await context.newPage();
    const errors = watchErrors(hub);
    const fail = (what: string) => async (error: Error) => {
      const statuses = await hub
        .$$eval('.status', (nodes) => nodes.map((node) => node.textContent).join(' | '))
        .catch(() => '');
      throw new Error(`${what}: ${error.message}\nstatuses: ${statuses}\n${output.slice(-20_000)}`);
    };
    await hub.goto(hubLink);
    // Filled in from the gateway at its port, with the relay at its port.
    await hub
      .waitForFunction(
        () => document.querySelector('#links-status')?.textContent === 'All four links are ready.',
      )
      .catch(fail('the hub filled in'));
    expect(await hub.inputValue('#relay-url')).toBe(`ws://localhost:${ports.RELAY_PORT}/ws`);
    expect(await hub.inputValue('#overlay-link')).toMatch(
      new RegExp(`^http://localhost:${ports.UI_PORT}/overlay\\.html`),
    );
    // Stream sources (the sources service's CORS) and the rooms board (the relay's): loaded, no red line.
    await hub
      .waitForFunction(() =>
        /No stream sources|\bsource\b/.test(document.querySelector('#sources')?.textContent ?? ''),
      )
      .catch(fail('the sources panel'));
    await hub
      .waitForFunction(() => /\d+ rooms?/.test(document.querySelector('#rooms-count')?.textContent ?? ''))
      .catch(fail('the rooms board'));
    for (const line of ['#sources-status', '#rooms-status', '#fetch-status'])
      expect({ line, tone: await hub.getAttribute(line, 'data-tone') }).not.toEqual({ line, tone: 'error' });

    // The overlay's link joins the relay from the moved UI origin.
    const overlay = await context.newPage();
    errors.push(...watchErrors(overlay));
    await overlay.goto(await hub.inputValue('#overlay-link'));
    await overlay
      .waitForFunction(() => document.body.dataset.relay === 'joined', null, { timeout: 30_000 })
      .catch(fail('the overlay joined'));

    // The capture page on the moved gateway port: token typed, relay settings filled in, joined.
    const capture = await context.newPage();
    await capture.goto(`http://localhost:${ports.CAPTION_PORT}/`);
    await capture.fill('#api-key', apiKey);
    await capture.press('#api-key', 'Tab');
    await capture
      .waitForFunction(
        () => document.querySelector('#relay-status')?.textContent?.startsWith('Relay: joined'),
        null,
        {
          timeout: 30_000,
        },
      )
      .catch(fail('the capture page joined'));
    expect(await capture.inputValue('#relay-url')).toBe(`ws://localhost:${ports.RELAY_PORT}/ws`);
    await capture.waitForSelector('#start:not([disabled])');
    // The outputs service answers at its port and lets the UI's origin in.
    const preflight = await fetch(`http://127.0.0.1:${ports.OUTPUTS_PORT}/rooms/any/destinations`, {
      method: 'OPTIONS',
      headers: {
        Origin: `http://localhost:${ports.UI_PORT}`,
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization',
      },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBe(`http://localhost:${ports.UI_PORT}`);
    expect(output).toMatch(new RegExp(`calendar\\s+http://localhost:${ports.CALENDAR_PORT}/`));
    expect(errors).toEqual([]);
  });
});
