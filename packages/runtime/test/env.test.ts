import { errorThrown } from '@live-captions/test-services';
import { z } from 'zod';
import {
  ConfigError,
  flagVar,
  intVar,
  issueLine,
  logLevel,
  parseEnv,
  parseEnvFile,
  parseEnvInto,
  postgresUrlVar,
  readAll,
  redisUrlVar,
  secretVar,
} from '../src/index.js';

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
    expect(
      errorThrown(() => parseEnv(schema, { WORKERS: '40', OFFLINE: 'maybe' }), ConfigError).issues,
    ).toEqual([
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

describe('secret variables', () => {
  const secrets = z.object({
    REDIS_URL: redisUrlVar().optional(),
    DATABASE_URL: postgresUrlVar().optional(),
    API_TOKEN: secretVar(z.string().min(24, { message: 'must be at least 24 characters' })).optional(),
    MIRROR: z
      .url({ message: 'must be a URL' })
      .refine((value) => value.startsWith('https:'), {
        message: 'must use https',
      })
      .optional(),
  });

  function issuesOf(env: NodeJS.ProcessEnv): string[] {
    return errorThrown(() => parseEnv(secrets, env), ConfigError).issues;
  }

  it('names a wrong secret variable without showing its value', () => {
    const issues = issuesOf({
      REDIS_URL: 'redis://:s3cret@[bad',
      DATABASE_URL: 'postgres://u:s3cret@[bad/db',
      API_TOKEN: 's3cret',
      MIRROR: 'http://user:s3cret@mirror.example',
    });
    expect(issues).toEqual([
      'REDIS_URL: must be a redis:// or rediss:// URL',
      'DATABASE_URL: must be a postgres:// URL',
      'API_TOKEN: must be at least 24 characters',
      'MIRROR: must use https',
    ]);
    expect(issues.join('\n')).not.toContain('s3cret');
  });

  it('accepts good URLs and still shows values that hold no secret', () => {
    expect(
      parseEnv(secrets, {
        REDIS_URL: 'rediss://:pw@redis:6380/1',
        DATABASE_URL: 'postgresql://u:pw@db/calendar',
      }),
    ).toEqual({ REDIS_URL: 'rediss://:pw@redis:6380/1', DATABASE_URL: 'postgresql://u:pw@db/calendar' });
    expect(issuesOf({ REDIS_URL: 'http://redis' })).toEqual([
      'REDIS_URL: must be a redis:// or rediss:// URL',
    ]);
    expect(issuesOf({ MIRROR: 'http://mirror.example' })).toEqual([
      'MIRROR="http://mirror.example": must use https',
    ]);
  });

  it('issueLine: the value only when it cannot hold a secret', () => {
    expect(issueLine('A', 'x', 'bad')).toBe('A="x": bad');
    expect(issueLine('A', 'x', 'bad', true)).toBe('A: bad');
    expect(issueLine('A', 'wss://u:p@h', 'bad')).toBe('A: bad');
    expect(issueLine('A', undefined, 'bad')).toBe('A: bad');
  });
});

describe('logLevel', () => {
  it('reads LOG_LEVEL, silent under test, info otherwise', () => {
    expect(logLevel({ LOG_LEVEL: 'debug' })).toBe('debug');
    expect(logLevel({ NODE_ENV: 'test' })).toBe('silent');
    expect(logLevel({ LOG_LEVEL: '' })).toBe('info');
    expect(() => logLevel({ LOG_LEVEL: 'loud' })).toThrow(
      'LOG_LEVEL="loud": must be one of fatal, error, warn, info, debug, trace, silent',
    );
  });
});
