import { hostname } from 'node:os';
import { describe, expect, it } from '@jest/globals';
import { loadWorkerConfig } from '../src/config.js';

const REDIS_URL = 'redis://:s3cret@redis:6379/0';

describe('loadWorkerConfig', () => {
  it('names a malformed or missing REDIS_URL without showing its password', () => {
    for (const [env, line] of [
      [{ REDIS_URL: 'redis://:s3cret@[bad' }, 'REDIS_URL: must be a redis:// or rediss:// URL'],
      [{ REDIS_URL: 'http://:s3cret@redis' }, 'REDIS_URL: must be a redis:// or rediss:// URL'],
      [{}, 'REDIS_URL: is required: the worker takes its jobs from Redis'],
    ] as const) {
      let message = '';
      try {
        loadWorkerConfig(env);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain(line);
      expect(message).not.toContain('s3cret');
    }
  });

  it('has one default worker id, the host name, which the health check shares', () => {
    expect(loadWorkerConfig({ REDIS_URL }).workerId).toBe(hostname());
    expect(loadWorkerConfig({ REDIS_URL, WORKER_ID: 'gpu-1' }).workerId).toBe('gpu-1');
    expect(loadWorkerConfig({ REDIS_URL }).redisUrl).toBe(REDIS_URL);
  });
});
