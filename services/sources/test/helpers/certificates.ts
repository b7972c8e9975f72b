/**
 * TLS material for the stream sources' HTTPS and RTMPS tests, made with openssl.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * TLS material made with openssl for the HTTPS tests: a private certificate authority (`caFile`,
 * what SOURCES_CA_FILE names), a server certificate it signed for 127.0.0.1 and localhost, and a
 * self-signed one for the same names that no authority vouches for.
 */
export function makeCertificates(): {
  caFile: string;
  trusted: { key: Buffer; cert: Buffer };
  selfSigned: { key: Buffer; cert: Buffer };
} {
  const dir = mkdtempSync(join(tmpdir(), 'sources-tls-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  const names = 'subjectAltName=IP:127.0.0.1,DNS:localhost';
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=Test CA',
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.pem'),
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    at('server.key'),
    '-out',
    at('server.csr'),
  );
  writeFileSync(at('names.ext'), `${names}\n`);
  openssl(
    'x509',
    '-req',
    '-in',
    at('server.csr'),
    '-CA',
    at('ca.pem'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    at('names.ext'),
    '-out',
    at('server.pem'),
  );
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=localhost',
    '-addext',
    names,
    '-keyout',
    at('self.key'),
    '-out',
    at('self.pem'),
  );
  return {
    caFile: at('ca.pem'),
    trusted: { key: readFileSync(at('server.key')), cert: readFileSync(at('server.pem')) },
    selfSigned: { key: readFileSync(at('self.key')), cert: readFileSync(at('self.pem')) },
  };
}
