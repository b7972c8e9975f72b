import { describe, expect, test } from '@jest/globals';
import { AllowList, isPrivateAddress } from '../src/domain/addresses.js';
import { allowLists, ffmpegArgs } from '../src/domain/ffmpeg-args.js';
import { maskUrl, parsePullUrl, SourceRefused } from '../src/domain/source-input.js';

describe('addresses', () => {
  test('loopback, private, link-local, reserved and mapped addresses are private; public ones are not', () => {
    for (const address of [
      '127.0.0.1',
      '127.9.9.9',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::10.0.0.1',
      '2002:7f00:1::1',
      '224.0.0.1',
    ])
      expect(`${address} ${isPrivateAddress(address)}`).toBe(`${address} true`);
    for (const address of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
      expect(`${address} ${isPrivateAddress(address)}`).toBe(`${address} false`);
  });

  test('the operator list lets named hosts, addresses and ranges through, nothing else', () => {
    const list = AllowList.parse('127.0.0.1, media.internal, 10.20.0.0/16, fd12::/16');
    expect(list.allows('127.0.0.1', '127.0.0.1')).toBe(true);
    expect(list.allows('localhost', '127.0.0.2')).toBe(false);
    expect(list.allows('media.internal', '192.168.7.7')).toBe(true);
    expect(list.allows('x', '10.20.3.4')).toBe(true);
    expect(list.allows('x', '10.21.3.4')).toBe(false);
    expect(list.allows('x', 'fd12::5')).toBe(true);
    expect(list.allows('public.example', '93.184.216.34')).toBe(true);
    expect(() => AllowList.parse('10.0.0.0/33')).toThrow('prefix too long');
    expect(() => AllowList.parse('http://x')).toThrow('not a host name');
  });
});

describe('source URLs', () => {
  test('only the stream schemes are taken; HLS is told by its .m3u8 path', () => {
    expect(parsePullUrl('https://cdn.example.org/live/index.m3u8?token=1').hls).toBe(true);
    expect(parsePullUrl('http://radio.example.org:8000/stream').hls).toBe(false);
    expect(parsePullUrl('SRT://encoder.example.org:9000').scheme).toBe('srt');
    for (const url of [
      'file:///etc/passwd',
      'concat:a|b',
      'subfile:,start,0,end,0,:/etc/passwd',
      'data:,x',
      'pipe:0',
      'hls+http://x/a.m3u8',
      'crypto:http://x',
      '/etc/passwd',
      'rtmp://host/live/a b',
      'srt://host',
      'https://x/\n',
    ])
      expect(() => parsePullUrl(url)).toThrow(SourceRefused);
  });

  test('credentials, query values and RTMP stream keys are masked', () => {
    expect(maskUrl(parsePullUrl('rtmp://media.example.org/live/supersecretkey'))).toBe(
      'rtmp://media.example.org/live/su…ey',
    );
    expect(maskUrl(parsePullUrl('https://username:pass@cdn.example.org/a.m3u8?token=abcdef123'))).toBe(
      'https://us…me:****@cdn.example.org/a.m3u8?token=ab…23',
    );
    expect(maskUrl(parsePullUrl('srt://e.example.org:9000?passphrase=0123456789abc'))).toBe(
      'srt://e.example.org:9000?passphrase=01…bc',
    );
  });
});

describe('ffmpeg command line', () => {
  test('each input allows only its own protocols and demuxers; never file, concat, subfile or data', () => {
    const inputs = [
      allowLists({ kind: 'pull', scheme: 'rtmp', url: '', hls: false, proxyUrl: '' }),
      allowLists({ kind: 'pull', scheme: 'https', url: '', hls: true, proxyUrl: '' }),
      allowLists({ kind: 'pull', scheme: 'http', url: '', hls: false, proxyUrl: '' }),
      allowLists({ kind: 'pull', scheme: 'rtsp', url: '', hls: false, proxyUrl: '' }),
      allowLists({ kind: 'srt-push', url: '' }),
    ];
    for (const { protocols, formats } of inputs) {
      for (const forbidden of ['file', 'concat', 'concatf', 'subfile', 'data', 'pipe', 'fd'])
        expect(protocols.split(',')).not.toContain(forbidden);
      for (const forbidden of ['concat', 'image2', 'lavfi', 'ffmetadata'])
        expect(formats.split(',')).not.toContain(forbidden);
    }
  });

  test('HTTP inputs go through the egress proxy; the output is 16 kHz mono float32 on stdout', () => {
    const args = ffmpegArgs(
      {
        kind: 'pull',
        scheme: 'https',
        url: 'https://x/a.m3u8',
        hls: true,
        proxyUrl: 'http://t:x@127.0.0.1:1',
      },
      { threads: 1, caFile: '/ca.pem' },
    );
    const at = (flag: string) => args[args.indexOf(flag) + 1];
    expect(at('-http_proxy')).toBe('http://t:x@127.0.0.1:1');
    expect([at('-tls_verify'), at('-ca_file')]).toEqual(['1', '/ca.pem']);
    expect(at('-f')).toBe('hls');
    expect(args.indexOf('-protocol_whitelist')).toBeLessThan(args.indexOf('-i'));
    expect(args.slice(-8)).toEqual(['-dn', '-ac', '1', '-ar', '16000', '-f', 'f32le', 'pipe:1']);
  });

  test("RTMP and SRT inputs, pushed or pulled, are probed for half a second, not ffmpeg's 5 s", () => {
    const probe = (input: Parameters<typeof ffmpegArgs>[0]) => {
      const args = ffmpegArgs(input, { threads: 1, caFile: '/ca.pem' });
      const at = args.indexOf('-analyzeduration');
      return at >= 0 && at < args.indexOf('-i') ? args[at + 1] : undefined;
    };
    const pull = (scheme: 'rtmp' | 'rtmps' | 'srt' | 'rtsp' | 'http') =>
      probe({ kind: 'pull', scheme, url: `${scheme}://x/a`, hls: false, proxyUrl: 'http://127.0.0.1:1' });
    expect(probe({ kind: 'rtmp-push', url: 'rtmp://127.0.0.1:1935/live/k' })).toBe('500000');
    expect(probe({ kind: 'srt-push', url: 'srt://127.0.0.1:9000?mode=listener' })).toBe('500000');
    expect([pull('rtmp'), pull('rtmps'), pull('srt'), pull('rtsp'), pull('http')]).toEqual([
      '500000',
      '500000',
      '500000',
      undefined,
      undefined,
    ]);
  });

  test('TLS inputs (RTMPS, HTTPS) verify the certificate against the CA file; others have no TLS', () => {
    const verifies = (scheme: 'rtmp' | 'rtmps' | 'srt' | 'rtsp' | 'http' | 'https') => {
      const args = ffmpegArgs(
        { kind: 'pull', scheme, url: `${scheme}://x/a`, hls: false, proxyUrl: 'http://127.0.0.1:1' },
        { threads: 1, caFile: '/ca.pem' },
      );
      const at = args.indexOf('-tls_verify');
      return at >= 0 && args[at + 1] === '1' && args[args.indexOf('-ca_file') + 1] === '/ca.pem';
    };
    expect(['rtmp', 'rtmps', 'srt', 'rtsp', 'http', 'https'].filter((s) => verifies(s as 'rtmp'))).toEqual([
      'rtmps',
      'https',
    ]);
  });
});
