import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../src/config.js';

describe('CALENDAR_TRUSTED_PROXIES', () => {
  it('defaults to loopback and takes addresses, CIDR ranges and express names', () => {
    expect(loadConfig({}).CALENDAR_TRUSTED_PROXIES).toBe('loopback');
    const list = '172.30.240.2, 10.0.0.0/8,fd00::/8,uniquelocal';
    expect(loadConfig({ CALENDAR_TRUSTED_PROXIES: list }).CALENDAR_TRUSTED_PROXIES).toBe(list);
  });

  it('refuses what express would not read', () => {
    for (const value of ['traefik', '10.0.0.0/33', '1.2.3.4/8/9', '::1/129', '1.2.3.4/x']) {
      expect(() => loadConfig({ CALENDAR_TRUSTED_PROXIES: value })).toThrow(/CALENDAR_TRUSTED_PROXIES/);
    }
  });
});

describe('DATABASE_URL', () => {
  it('names a malformed URL without showing its password', () => {
    for (const value of ['postgres://u:s3cret@[bad/calendar', 'mysql://u:s3cret@db/calendar']) {
      let message = '';
      try {
        loadConfig({ DATABASE_URL: value });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain('DATABASE_URL: must be a postgres:// URL');
      expect(message).not.toContain('s3cret');
    }
    expect(loadConfig({ DATABASE_URL: 'postgres://u:s3cret@db:5432/calendar' }).DATABASE_URL).toBe(
      'postgres://u:s3cret@db:5432/calendar',
    );
  });
});

describe('CALENDAR_CURRENCY_*', () => {
  it("defaults to The Events Calendar's $, prefix, USD and names a wrong value", () => {
    expect(loadConfig({})).toMatchObject({
      CALENDAR_CURRENCY_SYMBOL: '$',
      CALENDAR_CURRENCY_POSITION: 'prefix',
      CALENDAR_CURRENCY_CODE: 'USD',
    });
    expect(
      loadConfig({ CALENDAR_CURRENCY_SYMBOL: '€', CALENDAR_CURRENCY_POSITION: 'postfix' }),
    ).toMatchObject({
      CALENDAR_CURRENCY_SYMBOL: '€',
      CALENDAR_CURRENCY_POSITION: 'postfix',
    });
    expect(() => loadConfig({ CALENDAR_CURRENCY_POSITION: 'after' })).toThrow(
      /CALENDAR_CURRENCY_POSITION="after": must be prefix or postfix/,
    );
    expect(() => loadConfig({ CALENDAR_CURRENCY_CODE: 'euro' })).toThrow(
      /CALENDAR_CURRENCY_CODE="euro": must be an ISO 4217/,
    );
  });

  it('looks for due import subscriptions every 30 s unless told, and names a bad interval', () => {
    expect(loadConfig({}).CALENDAR_IMPORT_CHECK_MS).toBe(30_000);
    expect(loadConfig({ CALENDAR_IMPORT_CHECK_MS: '250' }).CALENDAR_IMPORT_CHECK_MS).toBe(250);
    for (const value of ['0', 'soon']) {
      expect(() => loadConfig({ CALENDAR_IMPORT_CHECK_MS: value })).toThrow(/CALENDAR_IMPORT_CHECK_MS/);
    }
  });
});
