import { z } from 'zod';
import { ConfigError, flagVar, intVar, parseEnv, parseEnvFile, parseEnvInto, readAll } from '../src/index.js';

const schema = z.object({
  WORKERS: intVar(1, 16).default(1),
  OFFLINE: flagVar().default(false),
  NAME: z.string().optional(),
});

describe('parseEnv', () => {
  it('applies defaults and treats empty strings as unset', () => {
    expect(parseEnv(schema, { WORKERS: '', OFFLINE: 'yes' })).toEqual({ WORKERS: 1, OFFLINE: true });
  });

  it('names every wrong variable with its value', () => {
    let caught: unknown;
    try {
      parseEnv(schema, { WORKERS: '40', OFFLINE: 'maybe' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).issues).toEqual([
      'WORKERS="40": must be at most 16',
      'OFFLINE="maybe": must be 1/0, true/false, yes/no or on/off',
    ]);
  });
});

describe('parseEnvFile', () => {
  it('reads keys, comments and quotes', () => {
    expect(parseEnvFile('# c\nA=1\nexport B="two words"\nC=\'x=y\'\n\n')).toEqual({
      A: '1',
      B: 'two words',
      C: 'x=y',
    });
  });

  it('rejects lines that are not assignments', () => {
    expect(() => parseEnvFile('A=1\nnot an assignment')).toThrow('line 2: expected KEY=value');
  });
});

describe('readAll', () => {
  it('reports the issues of every reader together', () => {
    expect(() =>
      readAll(
        () => parseEnv(schema, { WORKERS: '0' }),
        () => parseEnv(schema, { OFFLINE: 'x' }),
      ),
    ).toThrow(
      'Invalid configuration:\n  - WORKERS="0": must be at least 1\n  - OFFLINE="x": must be 1/0, true/false, yes/no or on/off',
    );
  });
});

describe('parseEnvInto', () => {
  it('collects the issues instead of throwing', () => {
    const issues: string[] = ['earlier problem'];
    expect(parseEnvInto(issues, schema, { WORKERS: '0' })).toBeUndefined();
    expect(issues).toEqual(['earlier problem', 'WORKERS="0": must be at least 1']);
    expect(parseEnvInto(issues, schema, { WORKERS: '2' })).toEqual({ WORKERS: 2, OFFLINE: false });
  });
});
