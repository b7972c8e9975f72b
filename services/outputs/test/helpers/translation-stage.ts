/**
 * The translation stage with real processes, for its suites: the relay (its history in Redis),
 * the outputs service on PostgreSQL translating the output room into Spanish and Catalan with a
 * real Apertium APy and the council's vocabulary, a writer publishing as a live editor does, and
 * a reader of the output room (as the audience page is) keeping every caption with when it came;
 * and what the suites ask of the tracks.
 */
import { randomBytes } from 'node:crypto';
import { expect } from '@jest/globals';
import type { RelayCaption, Translation } from '@live-captions/protocol';
import { createReader, type RelayPublisher, type RelayReader } from '@live-captions/relay-client/node';
import {
  type ApertiumServer,
  COUNCIL_VOCABULARY,
  runRedisUrl,
  startApertium,
} from '@live-captions/test-services';
import { createEngine, type TranslateTexts } from '@live-captions/translation';
import { api, kill, publisher, ROOM, type Running, reading, startOutputs, TOKENS, until } from './index.js';
import { startRelayStack } from './stack.js';

export class TranslationStage {
  relay: Running | undefined;
  outputs: Running | undefined;
  writer: RelayPublisher | undefined;
  reader: RelayReader | undefined;
  /** Every caption the audience reader got, in order, with when it got it. */
  readonly received: (RelayCaption & { gotAt: number })[] = [];

  private constructor(
    readonly apy: ApertiumServer,
    /** The outputs service's settings, to start it again with. */
    readonly env: Record<string, string>,
    readonly configPath: string,
    readonly relayRedis: { url: string; prefix: string },
  ) {}

  static async start(): Promise<TranslationStage> {
    const apy = await startApertium();
    const relayRedis = {
      url: runRedisUrl(),
      prefix: `outputs-translation-${randomBytes(4).toString('hex')}:`,
    };
    const stack = await startRelayStack({ allowed: [], relayRedis });
    const env = {
      ...stack.env,
      OUTPUTS_APERTIUM_URL: apy.url,
      // APy's first request of a pair starts its pipeline (seconds under load).
      OUTPUTS_TRANSLATION_TIMEOUT_MS: '20000',
      OUTPUTS_RETRY_MAX_MS: '1000',
      OUTPUTS_FAILING_RETRY_MS: '2000',
    };
    const stage = new TranslationStage(apy, env, stack.configPath, relayRedis);
    stage.relay = stack.relay;
    const outputs = await startOutputs(env);
    stage.outputs = outputs;
    for (const target of ['es', 'ca']) {
      const added = await api(outputs.port, 'POST', `/rooms/${ROOM}/translations`, TOKENS.write, {
        target,
        engine: 'apertium',
      });
      expect(added.status).toBe(201);
    }
    const vocabulary = await api(outputs.port, 'PUT', `/rooms/${ROOM}/vocabulary`, TOKENS.write, {
      terms: COUNCIL_VOCABULARY,
    });
    expect(vocabulary.status).toBe(200);
    await reading(outputs.port);
    const reader = createReader({
      url: `ws://127.0.0.1:${stack.relay.port}/ws`,
      room: ROOM,
      token: TOKENS.read,
      onCaption: (caption) => stage.received.push({ ...caption, gotAt: Date.now() }),
    });
    stage.reader = reader;
    const writer = publisher(stack.relay.port);
    stage.writer = writer;
    await until('the audience reader joined', () => reader.state === 'joined');
    await until('the writer joined', () => writer.state === 'joined');
    return stage;
  }

  async stop(): Promise<void> {
    this.reader?.close();
    this.writer?.close();
    await kill(this.outputs);
    await kill(this.relay);
    await this.apy.stop();
  }

  originals() {
    return this.received.filter((c) => c.label !== 'translation');
  }

  track(ln: string) {
    return this.received.filter((c) => c.label === 'translation' && c.ln === ln);
  }

  /** The latest text per id of a track. */
  latest(ln: string): Map<string | number, string> {
    const map = new Map<string | number, string>();
    for (const caption of this.track(ln)) map.set(caption.id, caption.final ?? '');
    return map;
  }

  async targets(): Promise<Translation[]> {
    const res = await api(this.outputs!.port, 'GET', `/rooms/${ROOM}/translations`, TOKENS.write);
    return (res.json as { translations: Translation[] }).translations;
  }

  /** Nothing pending on any track. */
  async settled(): Promise<boolean> {
    return (await this.targets()).every((t) => t.behind === 0);
  }

  /** The same APy, asked directly (the whole text's translation to compare with). */
  apertium(target: string): TranslateTexts {
    const engine = createEngine(
      { kind: 'apertium' },
      { allowedHosts: new Set(), apertiumUrl: this.apy.url, timeoutMs: 30_000 },
    );
    return (texts, context) =>
      engine.translate({ source: 'en', target, texts, ...(context ? { context } : {}) });
  }

  /** Publishes the captions at `perSecond`, as a live writer does. */
  async speak(captions: { id: string | number; text: string }[], perSecond = 5): Promise<void> {
    for (const caption of captions) {
      this.writer!.publish({ final: caption.text, id: caption.id });
      await new Promise((resolve) => setTimeout(resolve, 1000 / perSecond));
    }
  }

  /** Every published frame was fanned out once: the reader's count equals the acked frames (`sent`). */
  async expectEachOnce(): Promise<void> {
    for (const target of await this.targets()) expect(this.track(target.target)).toHaveLength(target.sent);
  }

  /**
   * Waits until both tracks hold every one of `captions` and nothing is pending, then checks that
   * each track's ids starting with `prefix` (the captions') came first in the captions' order.
   */
  async expectAllTranslatedInOrder(what: string, prefix: string, captions: { id: string }[]): Promise<void> {
    await until(
      what,
      async () =>
        captions.every((c) => this.latest('es').has(c.id) && this.latest('ca').has(c.id)) &&
        (await this.settled()),
      120_000,
    );
    for (const ln of ['es', 'ca']) {
      const firsts = [...new Set(this.track(ln).map((c) => String(c.id)))].filter((id) =>
        id.startsWith(prefix),
      );
      expect(firsts).toEqual(captions.map((c) => c.id));
    }
  }
}
