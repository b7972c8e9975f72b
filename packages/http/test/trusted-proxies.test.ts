import { describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { clientAddress, parseTrustedProxies, trustedProxiesVar } from '../src/trusted-proxies.js';

describe('parseTrustedProxies', () => {
  it('takes addresses, CIDR ranges and express names; empty trusts nobody', () => {
    const trusted = parseTrustedProxies('172.30.240.2, 10.0.0.0/8,fd00::/8,loopback');
    expect(['172.30.240.2', '10.9.8.7', 'fd00::1', '127.0.0.1', '::1'].map((a) => trusted(a, 0))).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(trusted('172.30.240.3', 0)).toBe(false);
    expect(trusted('::ffff:10.1.2.3', 0)).toBe(true);
    expect(parseTrustedProxies('')('127.0.0.1', 0)).toBe(false);
    expect(parseTrustedProxies(' , ')('127.0.0.1', 0)).toBe(false);
  });

  it('names the first entry it cannot read', () => {
    for (const entry of ['traefik', '10.0.0.0/33', '1.2.3.4/8/9', '::1/129', '1.2.3.4/x', '10.0.0.0/40']) {
      expect(() => parseTrustedProxies(`10.0.0.1, ${entry}`)).toThrow(
        `${JSON.stringify(entry)} is not an IP address or CIDR range (nor loopback, linklocal, uniquelocal)`,
      );
    }
  });

  it('as a variable: one issue naming the bad entry', () => {
    const result = trustedProxiesVar().safeParse('10.0.0.1,nope');
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([
      '"nope" is not an IP address or CIDR range (nor loopback, linklocal, uniquelocal)',
    ]);
  });
});

describe('clientAddress', () => {
  const proxies = parseTrustedProxies('10.0.0.0/8, ::1');

  it('believes X-Forwarded-For only from trusted proxies, right to left', () => {
    expect(clientAddress('203.0.113.9', '198.51.100.1', proxies)).toBe('203.0.113.9');
    expect(clientAddress('10.1.2.3', '198.51.100.1', proxies)).toBe('198.51.100.1');
    expect(clientAddress('::ffff:10.1.2.3', 'spoofed, 198.51.100.1, 10.9.9.9', proxies)).toBe('198.51.100.1');
    expect(clientAddress('10.1.2.3', ['198.51.100.7', '10.9.9.9'], proxies)).toBe('198.51.100.7');
    expect(clientAddress('::1', undefined, proxies)).toBe('::1');
    expect(clientAddress('10.1.2.3', 'not-an-ip', proxies)).toBe('10.1.2.3');
    expect(clientAddress(undefined, '198.51.100.1', proxies)).toBe('unknown');
    expect(clientAddress('10.1.2.3', '198.51.100.1', parseTrustedProxies(''))).toBe('10.1.2.3');
  });

  it('agrees with express given the same list as its trust proxy setting', async () => {
    const list = '127.0.0.1, 10.0.0.0/8';
    const app = express();
    app.set('trust proxy', parseTrustedProxies(list));
    app.get('/', (req, res) => {
      res.json({
        ip: req.ip,
        ours: clientAddress(
          req.socket.remoteAddress,
          req.headers['x-forwarded-for'],
          parseTrustedProxies(list),
        ),
        protocol: req.protocol,
      });
    });
    const answer = await request(app)
      .get('/')
      .set('X-Forwarded-For', '198.51.100.1, 10.0.0.5')
      .set('X-Forwarded-Proto', 'https');
    expect(answer.body).toEqual({ ip: '198.51.100.1', ours: '198.51.100.1', protocol: 'https' });
    const untrusted = express();
    untrusted.set('trust proxy', parseTrustedProxies(''));
    untrusted.get('/', (req, res) => res.json({ protocol: req.protocol }));
    expect((await request(untrusted).get('/').set('X-Forwarded-Proto', 'https')).body).toEqual({
      protocol: 'http',
    });
  });
});
