/**
 * The setup the event-faults suites share (issue 37): a session (session.ts) on its own stack per
 * suite file, publishers into its source and output rooms (a capture page and an editor, stood
 * in for), a phone (375x812) and a 1920x1080 screen; the audience link the links hub builds;
 * and the check each file ends with, that no page threw or broke its CSP.
 */
import type { RelayPublisher } from '@live-captions/relay-client/node';
import type { BrowserContext } from 'playwright-core';
import { phoneContext } from './browser.js';
import { closeSession, fragment, openSession, roomPublishers, type Session } from './session.js';

export interface EventSession {
  session: Session;
  source: RelayPublisher;
  output: RelayPublisher;
  phone: BrowserContext;
  screen: BrowserContext;
}

export async function openEventSession(): Promise<EventSession> {
  const session = await openSession();
  const { browser } = session;
  const { source, output } = roomPublishers(session);
  const phone = await phoneContext(browser);
  const screen = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
  return { session, source, output, phone, screen };
}

export async function closeEventSession(event: Partial<EventSession>): Promise<void> {
  event.source?.close();
  event.output?.close();
  await closeSession(event.session);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The audience link the links hub builds for the output room. */
export const audienceAddress = ({ stack }: Session) =>
  `${stack.uiUrl}audience.html#${fragment({
    relayUrl: stack.relayUrl,
    room: stack.rooms.output,
    relayReadToken: stack.tokens.outputRead,
  })}`;

/** What the pages logged beyond what a relay going away under them and the capture page's /health before its token log. */
export function unexpectedPageErrors(session: Session): string[] {
  const expected = [/WebSocket connection to .* failed/, /status of 401 \(Unauthorized\)/];
  return Object.entries(session.errors).flatMap(([page, list]) =>
    list.filter((text) => !expected.some((pattern) => pattern.test(text))).map((text) => `${page}: ${text}`),
  );
}
