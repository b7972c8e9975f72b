/**
 * One operator's session for the browser suite: the stack, one chromium with the looped clip as
 * its microphone, the pages the scenarios share (capture, editor, overlay), what each page logged
 * as an error, and every caption the source and output rooms carried. The scenarios run in order
 * on it, as an operator would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RelayCaption } from '@live-captions/protocol';
import { createPublisher, createReader, type RelayPublisher } from '@live-captions/relay-client/node';
import { buildPages, captureDir } from '@live-captions/web';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from './browser.js';
import { fakeMicrophoneWav } from './microphone.js';
import { CLIP, type Stack, startStack } from './stack.js';

export interface Session {
  stack: Stack;
  browser: Browser;
  context: BrowserContext;
  scratch: string;
  capture?: Page;
  editor?: Page;
  overlay?: Page;
  /** Console errors and failed requests, by page name. */
  errors: Record<string, string[]>;
  sourceCaptions: RelayCaption[];
  outputCaptions: RelayCaption[];
  readers: { close(): void }[];
}

/** The pages built, the stack started, the browser open and both rooms read from here. */
export async function openSession(): Promise<Session> {
  await buildPages();
  const stack = await startStack(captureDir);
  const scratch = mkdtempSync(join(tmpdir(), 'e2e-browser-'));
  let browser: Browser;
  let context: BrowserContext;
  try {
    browser = await launchBrowser(fakeMicrophoneWav(CLIP, scratch));
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  } catch (error) {
    // No session to close: stop what was started here.
    await stack.stop();
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
  const session: Session = {
    stack,
    browser,
    context,
    scratch,
    errors: {},
    sourceCaptions: [],
    outputCaptions: [],
    readers: [],
  };
  for (const [room, token, list] of [
    [stack.rooms.source, stack.tokens.sourceRead, session.sourceCaptions],
    [stack.rooms.output, stack.tokens.outputRead, session.outputCaptions],
  ] as const) {
    session.readers.push(
      createReader({ url: stack.relayUrl, room, token, onCaption: (caption) => list.push(caption) }),
    );
  }
  return session;
}

export async function closeSession(session: Session | undefined): Promise<void> {
  if (!session) return;
  for (const reader of session.readers) reader.close();
  await session.browser.close();
  await session.stack.stop();
  rmSync(session.scratch, { recursive: true, force: true });
}

/** With E2E_DEBUG=1: what each page showed (status lines and errors). */
export async function printPages(session: Session): Promise<void> {
  for (const name of ['capture', 'editor', 'overlay'] as const) {
    const page = session[name];
    if (!page || page.isClosed()) continue;
    const statuses = await page
      .$$eval('[role=status], #failure-text', (nodes) =>
        nodes.map((node) => node.textContent?.trim()).filter(Boolean),
      )
      .catch(() => []);
    console.log(`${name}: ${statuses.join(' | ')}\nerrors: ${(session.errors[name] ?? []).join(' | ')}`);
  }
}

/** Polls until the probe gives a value; on time-out the error carries the stack's logs. */
export async function until<T>(
  session: Session,
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}\n${session.stack.logs()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Publishers to the session's source and output rooms with their write tokens (the capture page and the editor, stood in for). */
export function roomPublishers({ stack }: Session): { source: RelayPublisher; output: RelayPublisher } {
  return {
    source: createPublisher({
      url: stack.relayUrl,
      room: stack.rooms.source,
      token: stack.tokens.sourceWrite,
    }),
    output: createPublisher({
      url: stack.relayUrl,
      room: stack.rooms.output,
      token: stack.tokens.outputWrite,
    }),
  };
}

export const fragment = (params: Record<string, string>) => new URLSearchParams(params).toString();

/** The editor on the test stack, reading the source room and writing the output room. */
export const editorAddress = ({ stack }: Session, settings: Record<string, string>) =>
  `${stack.uiUrl}editor.html#${fragment({
    relayUrl: stack.relayUrl,
    sourceRoom: stack.rooms.source,
    sourceReadToken: stack.tokens.sourceRead,
    outputRoom: stack.rooms.output,
    outputWriteToken: stack.tokens.outputWrite,
    ...settings,
  })}`;

/** An overlay of the output room, with its query settings (showtime, maxlines). */
export const overlayAddress = ({ stack }: Session, query: string, withRelayUrl = false) =>
  `${stack.uiUrl}overlay.html?${query}#${fragment({
    ...(withRelayUrl ? { relayUrl: stack.relayUrl } : {}),
    room: stack.rooms.output,
    relayReadToken: stack.tokens.outputRead,
  })}`;
