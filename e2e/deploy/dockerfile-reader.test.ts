/**
 * The Dockerfile reader the image suites check the Dockerfiles with (helpers/dockerfile.ts).
 */
import { describe, expect, it } from '@jest/globals';
import { finalUser, isRootUser, parseDockerfile } from './helpers/dockerfile.js';

describe('Dockerfile reader', () => {
  it('joins continuations, drops comment lines inside them, and reads stages and exec forms', () => {
    const parsed = parseDockerfile(
      [
        '# syntax=docker/dockerfile:1',
        'ARG BASE=node:20',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: Dockerfile syntax
        'FROM ${BASE} AS build',
        'RUN a \\',
        '# a comment between continued lines',
        '  && b',
        'FROM scratch',
        'USER 1000:1000',
        'CMD ["node", "x.js"]',
      ].join('\n'),
    );
    expect(parsed.directives).toEqual({ syntax: 'docker/dockerfile:1' });
    expect(parsed.globalArgs.map((arg) => arg.args)).toEqual(['BASE=node:20']);
    expect(parsed.stages.map((stage) => [stage.from, stage.name])).toEqual([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Dockerfile syntax
      ['${BASE}', 'build'],
      ['scratch', undefined],
    ]);
    expect(parsed.stages[0]!.instructions[0]!.args).toBe('a && b');
    expect(parsed.stages[1]!.instructions[1]!.json).toEqual(['node', 'x.js']);
    expect(finalUser(parsed.stages[1]!)).toBe('1000:1000');
    expect(isRootUser('root')).toBe(true);
    expect(isRootUser('0:0')).toBe(true);
    expect(isRootUser('1000:1000')).toBe(false);
    expect(() => parseDockerfile('RUN x')).toThrow(/before the first FROM/);
    expect(() => parseDockerfile('FROM a\nRUN x \\')).toThrow(/ends inside/);
  });
});
