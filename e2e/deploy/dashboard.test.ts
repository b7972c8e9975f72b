/**
 * The operators' Grafana dashboard (compose/grafana/live-captions.json) asks only for metrics the
 * services export: a renamed metric must not leave a panel silently empty.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { repoRoot } from './helpers/compose.js';

interface Dashboard {
  panels: { title: string; targets: { expr: string }[] }[];
}

/** Every TypeScript source of the services and packages, as one text to search. */
function sources(): string {
  const texts: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (name === 'node_modules' || name === 'dist' || name === 'test') continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) texts.push(readFileSync(path, 'utf8'));
    }
  };
  walk(join(repoRoot, 'services'));
  walk(join(repoRoot, 'packages'));
  return texts.join('\n');
}

/** How a queried name is defined: per-service HTTP and process metrics, or a literal name. */
function exported(name: string, code: string): boolean {
  const base = name.replace(/_(bucket|sum|count)$/, '');
  const [service, ...rest] = base.split('_');
  const tail = rest.join('_');
  if (tail === 'http_requests_total' || tail === 'http_request_duration_seconds') {
    return code.includes(`serviceMetrics('${service}')`);
  }
  if (tail.startsWith('process_'))
    return code.includes(`prefix: '${service}_'`) || code.includes(`prefix: \`\${service}_\``);
  if (code.includes(`'${base}'`)) return true;
  // Counters named from a table (`relay_${snake(key)}_total`, `worker_jobs_${...}_total`).
  const table = /^(relay|worker_jobs)_([a-z_]+?)(_total)?$/.exec(base);
  if (!table) return false;
  const key = table[2]!.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
  return code.includes(`${key}:`);
}

describe('Grafana dashboard', () => {
  const dashboard = JSON.parse(
    readFileSync(join(repoRoot, 'compose/grafana/live-captions.json'), 'utf8'),
  ) as Dashboard;
  const code = sources();

  it('queries only metrics the services export', () => {
    const names = new Set(
      dashboard.panels.flatMap((panel) =>
        panel.targets.flatMap(
          (target) => target.expr.match(/\b(?:speech|worker|relay|calendar|ui)_[a-z_]+\b/g) ?? [],
        ),
      ),
    );
    expect(names.size).toBeGreaterThan(10);
    expect([...names].filter((name) => !exported(name, code))).toEqual([]);
  });
});
