import { describe, expect, it } from '@jest/globals';
import { addressKey } from '../src/domain/client-ip.js';

describe('addressKey', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv6 address under its /64, whatever its spelling', () => {
    const key = '2001:db8:1:2::/64';
    expect(addressKey('2001:db8:1:2::1')).toBe(key);
    expect(addressKey('2001:0DB8:0001:0002:aaaa:bbbb:cccc:dddd')).toBe(key);
    expect(addressKey('2001:db8:1:2:0:0:0:0')).toBe(key);
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(addressKey('2001:db8:1:3::1')).not.toBe(key);
  });

  it('leaves a value that is not an address alone', () => {
    expect(addressKey('unknown')).toBe('unknown');
  });
});
