/**
 * A stand-in for YouTube Live's caption ingestion ("Post captions to URL"): POST only, the
 * ingestion URL's parameters plus `seq`, `text/plain; charset=utf-8`, a body of blocks
 * `YYYY-MM-DDTHH:MM:SS.mmm\n<text>\n` (UTC, `<br>` for line breaks, at most two lines of 40
 * characters), answered with its server time. `skewMs` puts its clock ahead of (or behind) ours.
 */
import { randomBytes } from 'node:crypto';
import { hasParams, type StandIn, startStandIn } from './stand-in-core.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;

/** One caption block of an accepted body. */
export interface YouTubeBlock {
  at: string;
  lines: string[];
}

export function youtubeBlocks(body: string): YouTubeBlock[] {
  const lines = body.split('\n');
  const blocks: YouTubeBlock[] = [];
  for (let i = 0; i + 1 < lines.length; i += 2)
    blocks.push({ at: lines[i] ?? '', lines: (lines[i + 1] ?? '').split('<br>') });
  return blocks;
}

function bodyProblems(body: string): string[] {
  const problems: string[] = [];
  if (!body.endsWith('\n')) problems.push('body does not end with a newline');
  const lines = body.split('\n');
  if (lines.length % 2 !== 1 || lines.length < 3) problems.push('body is not timestamp/text line pairs');
  for (const block of youtubeBlocks(body)) {
    if (!TIMESTAMP.test(block.at)) problems.push(`bad timestamp line ${JSON.stringify(block.at)}`);
    if (block.lines.length > 2) problems.push('more than two lines in a block');
    for (const line of block.lines) {
      if (line.length > 40) problems.push(`line over 40 characters: ${JSON.stringify(line)}`);
      if (line.trim() === '') problems.push('empty caption line');
    }
  }
  return problems;
}

export function startYouTubeStandIn(options: { skewMs?: number } = {}): Promise<StandIn> {
  const params = {
    cid: randomBytes(6).toString('hex'),
    ns: 'yt-stand-in',
    id: randomBytes(8).toString('hex'),
    expire: '9999999999',
    sparams: 'id,ns,expire',
    signature: `SIG${randomBytes(12).toString('hex')}`,
    key: 'yt_qc',
  };
  return startStandIn('/closedcaption', {
    params,
    initialSeq: 0,
    refuse(req, url) {
      if (url.pathname !== '/closedcaption') return { status: 404, message: 'not found' };
      if (req.method !== 'POST') return { status: 405, message: 'POST only' };
      if (!hasParams(url, params) || !/^\d+$/.test(url.searchParams.get('seq') ?? ''))
        return { status: 403, message: 'bad parameters' };
      if (!/^text\/plain;\s*charset=utf-8$/i.test(req.headers['content-type'] ?? ''))
        return { status: 400, message: 'content type must be text/plain; charset=utf-8' };
      return undefined;
    },
    bodyProblems,
    answer: () => `${new Date(Date.now() + (options.skewMs ?? 0)).toISOString().slice(0, 23)}\n`,
  });
}
