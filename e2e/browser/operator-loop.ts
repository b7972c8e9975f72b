/**
 * The operator's loop suite (operator-loop.test.ts): a session (session.ts) with a publisher into
 * each room, as a capture page and an editor would publish, the editor and the overlay pages.
 */
import { createPublisher, type RelayPublisher } from '@live-captions/relay-client/node';
import type { Page } from 'playwright-core';
import { watchErrors } from './browser.js';
import { editorAddress, openSession, overlayAddress, type Session } from './session.js';

export interface OperatorLoop {
  session: Session;
  /** Publishes into the source room (ids `e2e-<n>`, as a capture page numbers them). */
  source: RelayPublisher;
  /** Publishes into the output room directly (the overlay's scenarios). */
  output: RelayPublisher;
  sourceCount: number;
  editor: Page;
  overlay: Page;
}

export async function openLoop(): Promise<OperatorLoop> {
  const session = await openSession();
  const { stack, context, errors } = session;
  const publisher = (room: string, token: string) => createPublisher({ url: stack.relayUrl, room, token });
  const overlay = await context.newPage();
  errors.overlay = watchErrors(overlay);
  await overlay.goto(overlayAddress(session, 'showtime=0&maxlines=20'));
  await overlay.waitForFunction(() => document.body.dataset.relay === 'joined');
  const editor = await context.newPage();
  errors.editor = watchErrors(editor);
  await editor.goto(editorAddress(session, { mode: 'timed', delay: '5' }));
  for (const line of ['Output: joined', 'Source: joined'])
    await editor.waitForFunction(
      (wanted) => document.querySelector('.status-row')?.textContent?.includes(wanted),
      line,
    );
  return {
    session,
    source: publisher(stack.rooms.source, stack.tokens.sourceWrite),
    output: publisher(stack.rooms.output, stack.tokens.outputWrite),
    sourceCount: 0,
    editor,
    overlay,
  };
}

/** Publishes a final caption into the source room as a capture page would; returns when. */
export function speak(loop: OperatorLoop, text: string): number {
  loop.sourceCount += 1;
  loop.source.publish({ final: text, id: `e2e-${loop.sourceCount}`, ln: 'en' });
  return Date.now();
}
