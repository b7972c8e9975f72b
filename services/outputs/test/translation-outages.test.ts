/**
 * The translation stage with real processes (helpers/translation-stage.ts) through outages: APy
 * stopped for a while, the outputs service SIGKILLed mid-stream, the relay SIGKILLed and restarted
 * (its history in Redis). Every caption is translated once (the relay's fan-outs equal the acked
 * frames), in order, while the original keeps flowing.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { kill, startOutputs, startRelay, until } from './helpers/index.js';
import { TranslationStage } from './helpers/translation-stage.js';

jest.setTimeout(300_000);

let stage: TranslationStage;

beforeAll(async () => {
  stage = await TranslationStage.start();
}, 180_000);

afterAll(() => stage?.stop());

describe('the live translation stage through outages', () => {
  test('APy stopped: the original flows undelayed, the tracks wait and catch up in order, once each', async () => {
    await stage.apy.stop();
    const start = stage.received.length;
    const captions = Array.from({ length: 12 }, (_, i) => ({
      id: `down${i}`,
      text: `Item number ${i + 1} is the repair of the road on Mill Street.`,
    }));
    const sentAt = Date.now();
    await stage.speak(captions, 4);
    // The originals arrive while no translation can be made.
    await until('every original while APy is down', () =>
      captions.every((c) => stage.originals().some((o) => o.id === c.id)),
    );
    const lastOriginal = stage.originals().find((o) => o.id === 'down11')!;
    console.log(
      `originals with APy down: last one ${lastOriginal.gotAt - sentAt} ms after the first was sent`,
    );
    expect(
      stage.received.slice(start).filter((c) => String(c.id).startsWith('down') && c.label === 'translation'),
    ).toEqual([]);
    await until(
      'both tracks waiting, behind, with the error',
      async () =>
        (await stage.targets()).every((t) => t.state === 'waiting' && t.behind > 0 && t.lastError !== null),
      30_000,
    );
    const waiting = await stage.targets();
    expect(waiting[0]!.lastError!.message).toMatch(/Apertium cannot be reached/);

    await stage.apy.start();
    await stage.expectAllTranslatedInOrder('every caption translated after the recovery', 'down', captions);
    for (const ln of ['es', 'ca']) expect(stage.latest(ln).get('down3')).toContain('Mill Street');
    await until('translating again', async () =>
      (await stage.targets()).every((t) => t.state === 'translating'),
    );
    await stage.expectEachOnce();
  });

  test('the outputs service SIGKILLed mid-stream: nothing lost, nothing twice', async () => {
    const captions = Array.from({ length: 16 }, (_, i) => ({
      id: `kill${i}`,
      text: i % 2 === 0 ? `The council approves budget line ${i + 1}` : `for the youth sports program.`,
    }));
    const speaking = stage.speak(captions, 5);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await kill(stage.outputs);
    await speaking;
    // The first process's log: state changes, never a caption's text (original or translated).
    const log = stage.outputs!.proc.output();
    expect(log).toContain('"msg":"translation state"');
    for (const text of ['Mill Street', 'youth sports', 'Okonkwo', 'biblioteca', 'Grace Hall'])
      expect(log).not.toContain(text);
    stage.outputs = await startOutputs(stage.env);
    await stage.expectAllTranslatedInOrder('every caption translated after the restart', 'kill', captions);
    await stage.expectEachOnce();
  });

  test('the relay SIGKILLed mid-stream and restarted: nothing lost, nothing twice, in order', async () => {
    const captions = Array.from({ length: 14 }, (_, i) => ({
      id: `relay${i}`,
      text: i % 2 === 0 ? `The pool stays open until nine` : `on weekdays from June to August.`,
    }));
    const speaking = stage.speak(captions, 5);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const port = stage.relay!.port;
    await kill(stage.relay);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    stage.relay = await startRelay(stage.configPath, port, stage.relayRedis);
    await speaking;
    await stage.expectAllTranslatedInOrder(
      'every caption translated after the relay restart',
      'relay',
      captions,
    );
    expect(
      stage
        .originals()
        .filter((c) => String(c.id).startsWith('relay'))
        .map((c) => c.id),
    ).toEqual(captions.map((c) => c.id));
    await stage.expectEachOnce();
  });
});
