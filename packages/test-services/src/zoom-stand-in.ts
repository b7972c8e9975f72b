/**
 * A stand-in for Zoom's third-party closed caption API: POST `<token URL>&seq=N&lang=xx-XX` with
 * `text/plain` UTF-8 caption text only (`\n` line breaks, lines of 32 characters); 405 for any
 * other method, 403 for a missing/invalid seq or token parameter, 400 until the meeting has
 * started; `GET /closedcaption/seq?<token params>` answers the last seq accepted. `lastSeq`
 * starts the meeting's counter elsewhere (another captioner, an earlier run of ours).
 */
import { randomBytes } from 'node:crypto';
import { hasParams, type StandIn, startStandIn } from './stand-in-core.js';

export interface ZoomStandIn extends StandIn {
  /** The meeting starts: POSTs are accepted from now on (400 before). */
  start(): void;
}

function bodyProblems(body: string): string[] {
  const problems: string[] = [];
  if (body.trim() === '') problems.push('empty body');
  if (body.includes('<br>')) problems.push('<br> in a Zoom body');
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:/m.test(body)) problems.push('timestamp line in a Zoom body');
  if (/^[\w%+.-]+=[\w%+.-]*(&|$)/.test(body)) problems.push('form-encoded body');
  for (const line of body.split('\n'))
    if (line.length > 32) problems.push(`line over 32 characters: ${JSON.stringify(line)}`);
  return problems;
}

export async function startZoomStandIn(
  options: { started?: boolean; lastSeq?: number } = {},
): Promise<ZoomStandIn> {
  let started = options.started ?? true;
  const params = {
    id: String(100_000_000 + Math.floor(Math.random() * 800_000_000)),
    ns: randomBytes(6).toString('base64'),
    expire: '86400',
    spparams: 'id,ns,expire',
    signature: `SIG${randomBytes(12).toString('hex')}`,
  };
  const standIn = await startStandIn('/closedcaption', {
    params,
    initialSeq: options.lastSeq ?? 0,
    other(req, url, res, last) {
      if (url.pathname !== '/closedcaption/seq') return false;
      if (req.method !== 'GET') res.writeHead(405).end('GET only');
      else if (!hasParams(url, params)) res.writeHead(403).end('bad parameters');
      else if (!started) res.writeHead(400).end('meeting not started');
      else res.writeHead(200, { 'Content-Type': 'text/plain' }).end(String(last()));
      return true;
    },
    refuse(req, url) {
      if (url.pathname !== '/closedcaption') return { status: 404, message: 'not found' };
      if (req.method !== 'POST') return { status: 405, message: 'Method not allowed. Not a POST.' };
      if (!hasParams(url, params) || !/^\d+$/.test(url.searchParams.get('seq') ?? ''))
        return { status: 403, message: 'missing or invalid seq, id, signature, expire or ns' };
      if (!/^[a-z]{2,3}-[A-Z]{2}$/.test(url.searchParams.get('lang') ?? ''))
        return { status: 403, message: 'missing or invalid lang' };
      if (!/^text\/plain(;\s*charset=utf-8)?$/i.test(req.headers['content-type'] ?? ''))
        return { status: 403, message: 'content type must be text/plain' };
      if (!started) return { status: 400, message: 'The meeting has not started.' };
      return undefined;
    },
    bodyProblems,
    answer: () => '',
  });
  return {
    ...standIn,
    start: () => {
      started = true;
    },
  };
}
