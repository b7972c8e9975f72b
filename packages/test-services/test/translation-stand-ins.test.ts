/**
 * The translation engines' stand-ins refuse what LibreTranslate and DeepL refuse and record what
 * their documentation rules out; the Apertium harness runs a real APy on loopback only.
 */
import { execFileSync } from 'node:child_process';
import {
  COUNCIL_MEETING,
  captionsAsCaptured,
  captionsCutMidSentence,
  standInTranslation,
  startApertium,
  startDeepLStandIn,
  startLibreTranslateStandIn,
} from '../src/index.js';

const json = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...headers },
  });

describe('LibreTranslate stand-in', () => {
  it('translates a string or an array, and refuses what the server refuses', async () => {
    const libre = await startLibreTranslateStandIn({ apiKey: 'k1', requireKey: true, batchLimit: 2 });
    try {
      const ok = await json(`${libre.url}/translate`, {
        q: ['the cat', 'Okonkwo ran'],
        source: 'en',
        target: 'pb',
        api_key: 'k1',
      });
      expect(await ok.json()).toEqual({ translatedText: ['eht tac', 'Okonkwo nar'] });
      const single = await json(`${libre.url}/translate`, {
        q: 'the cat',
        source: 'en',
        target: 'zh-Hans',
        api_key: 'k1',
      });
      expect(await single.json()).toEqual({ translatedText: 'eht tac' });
      const form = await fetch(`${libre.url}/translate`, {
        method: 'POST',
        body: new URLSearchParams({ q: 'the cat', source: 'en', target: 'es', api_key: 'k1' }),
      });
      expect(await form.json()).toEqual({ translatedText: 'eht tac' });

      const refusals: [unknown, number, string][] = [
        [{ q: 'x', source: 'en', target: 'es', api_key: 'wrong' }, 403, 'Invalid API key'],
        [{ q: 'x', source: 'en', target: 'es' }, 400, 'Please contact the server operator to get an API key'],
        [{ source: 'en', target: 'es', api_key: 'k1' }, 400, 'Invalid request: missing q parameter'],
        [
          { q: ['a', 'b', 'c'], source: 'en', target: 'es', api_key: 'k1' },
          400,
          'Invalid request: request (3) exceeds text limit (2)',
        ],
        [{ q: 'x', source: 'en', target: 'de', api_key: 'k1' }, 400, 'de is not supported'],
        [
          { q: 'x', source: 'ca', target: 'es', api_key: 'k1' },
          400,
          'Spanish (es) is not available as a target language from Catalan (ca)',
        ],
        ['[1, 2]', 400, 'Invalid JSON format'],
      ];
      for (const [body, status, error] of refusals) {
        const response = await json(`${libre.url}/translate`, body);
        expect([response.status, await response.json()]).toEqual([status, { error }]);
      }
      expect(libre.violations).toEqual([]);
      await json(`${libre.url}/translate`, { q: [1], source: 'en', target: 'es', api_key: 'k1', model: 'x' });
      expect(libre.violations).toEqual([
        '/translate: undocumented parameter model',
        '/translate: q holds something other than strings',
      ]);
      expect((await (await fetch(`${libre.url}/languages`)).json())[0]).toMatchObject({
        code: 'en',
        name: 'English',
      });
    } finally {
      await libre.close();
    }
  });
});

describe('DeepL stand-in', () => {
  it('wants the key in its header on the right host, 1-50 texts, 128 KiB, documented parameters', async () => {
    const deepl = await startDeepLStandIn({ key: 'free-key:fx' });
    const auth = { Authorization: 'DeepL-Auth-Key free-key:fx' };
    try {
      const ok = await json(
        `${deepl.url}/v2/translate`,
        { text: ['the cat'], target_lang: 'es', context: 'before' },
        auth,
      );
      expect(await ok.json()).toEqual({
        translations: [{ detected_source_language: 'EN', text: 'eht tac' }],
      });
      expect(deepl.contexts).toEqual(['before']);
      const statuses = async (body: unknown, headers: Record<string, string> = auth) =>
        (await json(`${deepl.url}/v2/translate`, body, headers)).status;
      expect(await statuses({ text: ['x'], target_lang: 'ES' }, {})).toBe(403);
      expect(
        await statuses({ text: ['x'], target_lang: 'ES' }, { Authorization: 'DeepL-Auth-Key other:fx' }),
      ).toBe(403);
      expect(
        await statuses({ text: ['x'], target_lang: 'ES' }, { Authorization: 'DeepL-Auth-Key pro-key' }),
      ).toBe(403);
      expect(await statuses({ text: 'x', target_lang: 'ES' })).toBe(400);
      expect(await statuses({ text: ['x'], target_lang: 'XX' })).toBe(400);
      expect(await statuses({ text: ['x'], target_lang: 'ES', source_lang: 'EN-GB' })).toBe(400);
      expect(deepl.violations).toEqual([]);
      expect(await statuses({ text: Array(51).fill('x'), target_lang: 'ES' })).toBe(400);
      expect(await statuses({ text: ['x'.repeat(130 * 1024)], target_lang: 'ES' })).toBe(413);
      expect(await statuses({ text: ['x'], target_lang: 'ES', auth_key: 'free-key:fx' })).toBe(403);
      expect(await statuses({ text: ['x'], target_lang: 'ES', glossary: 'g' })).toBe(200);
      expect(deepl.violations).toEqual([
        '/v2/translate: 51 texts in one request',
        expect.stringMatching(/^\/v2\/translate: a body of \d+ bytes$/),
        '/v2/translate: the key outside the Authorization header',
        '/v2/translate: undocumented parameter glossary',
      ]);
      const targets = await fetch(`${deepl.url}/v2/languages?type=target`, { headers: auth });
      expect(await targets.json()).toContainEqual({
        language: 'PT-BR',
        name: 'Portuguese (Brazilian)',
        supports_formality: true,
      });
      deepl.script({ status: 456 }, 'hang');
      expect(await statuses({ text: ['x'], target_lang: 'ES' })).toBe(456);
      const asked = deepl.requests.length;
      const hung = json(`${deepl.url}/v2/translate`, { text: ['x'], target_lang: 'ES' }, auth).then(
        () => 'answered',
        () => 'no answer',
      );
      while (deepl.requests.length === asked) await new Promise((resolve) => setTimeout(resolve, 10));
      const early = await Promise.race([
        hung,
        new Promise((resolve) => setTimeout(() => resolve('pending'), 300)),
      ]);
      expect(early).toBe('pending');
      // close() ends the held request without an answer.
      await deepl.close();
      expect(await hung).toBe('no answer');
    } finally {
      await deepl.close();
    }
  });

  it('translates deterministically, leaving names, numbers and placeholders', () => {
    expect(standInTranslation('Grace met ZQX1Q at 5 pm, twice.')).toBe('Grace tem ZQX1Q ta 5 mp, eciwt.');
  });
});

describe('scripted speech', () => {
  it('is cut like the capture page: longer windows, longer captions; the mid-sentence cut never ends a sentence', () => {
    const words = (captions: { text: string }[]) => captions.map((caption) => caption.text.split(' ').length);
    const mean = (list: number[]) => list.reduce((a, b) => a + b, 0) / list.length;
    const [three, six, nine] = ([3, 6, 9] as const).map((intervalSeconds) =>
      words(captionsAsCaptured(COUNCIL_MEETING, { intervalSeconds })),
    );
    expect(mean(three!)).toBeGreaterThan(5);
    expect(mean(three!)).toBeLessThan(mean(six!));
    expect(mean(six!)).toBeLessThan(mean(nine!));
    expect(Math.max(...three!)).toBeLessThanOrEqual(9);
    const all = COUNCIL_MEETING.join(' ');
    expect(
      captionsAsCaptured(COUNCIL_MEETING, { intervalSeconds: 6 })
        .map((c) => c.text)
        .join(' '),
    ).toBe(all);
    const mid = captionsCutMidSentence(COUNCIL_MEETING, { seed: 2 });
    expect(mid.map((c) => c.text).join(' ')).toBe(all);
    expect(mid.slice(0, -1).every((caption) => !/[.?!]$/.test(caption.text))).toBe(true);
    expect(captionsCutMidSentence(COUNCIL_MEETING, { seed: 2 })).toEqual(mid);
  });
});

describe('Apertium APy harness', () => {
  it('runs a real APy on loopback only, measures its CPU, and survives a kill and a restart', async () => {
    const apy = await startApertium();
    try {
      const translate = async () => {
        const response = await fetch(`${apy.url}/translate`, {
          method: 'POST',
          body: new URLSearchParams({ langpair: 'eng|spa', q: 'The council met.', markUnknown: 'no' }),
        });
        return ((await response.json()) as { responseData: { translatedText: string } }).responseData
          .translatedText;
      };
      expect(await translate()).toMatch(/consejo/);
      const listening = execFileSync('ss', ['-Hltn', `sport = :${apy.port}`], { encoding: 'utf8' });
      expect(listening).toContain(`127.0.0.1:${apy.port}`);
      expect(listening).not.toMatch(/(\*|0\.0\.0\.0|\[::\]):\d/);
      expect(apy.cpuSeconds()).toBeGreaterThan(0);
      await apy.kill();
      expect(apy.running).toBe(false);
      await expect(translate()).rejects.toThrow();
      await apy.start();
      expect(await translate()).toMatch(/consejo/);
    } finally {
      await apy.stop();
    }
  }, 60_000);
});
