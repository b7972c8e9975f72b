/**
 * Runs what this replica is responsible for: every source that should run and whose lease it holds,
 * up to SOURCES_MAX_PER_NODE. Checked every quarter of the lease time, and at once when the API
 * adds, starts, stops, changes or removes a source. A replica that dies stops renewing its leases;
 * another one takes its sources at its next check after they lapse.
 */
import type { Leases } from '@live-captions/redis';
import { type Logger, Supervision } from '@live-captions/runtime';
import type { SourcesMetrics } from '../adapters/metrics.js';
import type { Nodes } from '../adapters/nodes.js';
import type { SourceRow, SourcesRepo } from '../adapters/sources-repo.js';
import { type RunnerDeps, SourceRunner } from './source-runner.js';

export interface SupervisorDeps {
  repo: SourcesRepo;
  leases: Leases;
  nodes: Nodes;
  runner: RunnerDeps;
  maxPerNode: number;
  tickMs: number;
  log: Logger;
  metrics: SourcesMetrics;
}

export class Supervisor extends Supervision {
  private readonly running = new Map<string, { runner: SourceRunner; settings: string; token: string }>();

  constructor(private readonly deps: SupervisorDeps) {
    super(deps.tickMs);
  }

  /** The runner of a source when this replica runs it. */
  runner(id: string): SourceRunner | undefined {
    return this.running.get(id)?.runner;
  }

  get size(): number {
    return this.running.size;
  }

  /** Whether this replica may take (or holds) a push source's lease now: an encoder is arriving here. */
  async claim(id: string): Promise<boolean> {
    if (this.running.has(id)) return true;
    if (this.running.size >= this.deps.maxPerNode) return false;
    if (!(await this.deps.leases.hold(id))) return false;
    await this.check();
    return this.running.has(id);
  }

  protected async stopAll(): Promise<void> {
    await Promise.all([...this.running.keys()].map((id) => this.stopSource(id)));
  }

  protected async tick(): Promise<void> {
    await this.deps.nodes.beat();
    const sources = await this.read(() => this.deps.repo.list());
    if (!sources) return;
    // A source runs with its room's write token: a room removed from the relay stops it, a new
    // token (rotated on the relay, SIGHUP) starts it again with that one.
    const tokenOf = (source: SourceRow) => this.deps.runner.writeToken(source.room);
    const wanted = new Map(
      sources.filter((s) => s.running && tokenOf(s) !== undefined).map((s) => [s.id, s]),
    );
    for (const [id, running] of [...this.running])
      if (running.token !== (wanted.has(id) ? tokenOf(wanted.get(id)!) : undefined))
        await this.stopSource(id);
    for (const source of sources)
      if (source.running && !wanted.has(source.id)) await this.reportRoomless(source);
    for (const source of wanted.values()) {
      const mine = this.running.has(source.id);
      if (!mine && this.running.size >= this.deps.maxPerNode) continue;
      if (await this.deps.leases.hold(source.id)) this.run(source, tokenOf(source)!);
      else if (mine) await this.stopSource(source.id, false);
    }
    const states = new Map<string, number>();
    for (const { runner } of this.running.values()) {
      const status = runner.status();
      states.set(status.state, (states.get(status.state) ?? 0) + 1);
      this.deps.metrics.behind.set({ source: runner.id }, status.behindSeconds);
    }
    this.deps.metrics.running.reset();
    for (const [state, count] of states) this.deps.metrics.running.set({ state }, count);
  }

  /** A running source whose room the relay no longer has: failed, saying why (every replica alike). */
  private async reportRoomless(source: SourceRow): Promise<void> {
    const reason = `The relay has no room "${source.room}"`;
    if (source.status?.reason === reason && Date.now() - (source.statusAt ?? 0) < this.deps.tickMs) return;
    const since = source.status?.reason === reason ? source.status.since : new Date().toISOString();
    const status = {
      state: 'failed' as const,
      reason,
      level: 0,
      behindSeconds: 0,
      since,
      node: this.deps.runner.node,
    };
    await this.deps.repo.report(source.id, status).catch(() => undefined);
  }

  private run(source: SourceRow, token: string): void {
    const settings = JSON.stringify(source.settings);
    const running = this.running.get(source.id);
    if (running) {
      if (running.settings !== settings) {
        running.runner.update(source);
        running.settings = settings;
      }
      return;
    }
    this.deps.log.info(
      { source: source.id, room: source.room, kind: source.kind },
      'source lease held; running',
    );
    this.running.set(source.id, { runner: new SourceRunner(source, this.deps.runner), settings, token });
  }

  private async stopSource(id: string, release = true): Promise<void> {
    const running = this.running.get(id);
    if (!running) return;
    this.running.delete(id);
    this.deps.metrics.behind.remove({ source: id });
    await running.runner.stop();
    if (release) await this.deps.leases.release(id);
    this.deps.log.info({ source: id }, release ? 'source stopped' : 'source lease lost; stopped');
  }
}
