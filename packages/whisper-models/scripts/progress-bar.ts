// The progress of `pnpm model`'s downloads: a bar redrawn in place on a terminal (percentage,
// MiB, speed over the last 5 s, ETA), plain lines every few seconds otherwise (logs, CI).
import type { DownloadEvent } from '../src/download.js';

const MiB = 1024 * 1024;
const mib = (bytes: number) => (bytes / MiB).toFixed(1);

function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--:--';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}

/** Progress bar on a TTY (redrawn in place), plain lines every few seconds otherwise. */
export class ProgressReporter {
  private readonly tty = Boolean(process.stdout.isTTY);
  private samples: { at: number; bytes: number }[] = [];
  private lastDraw = 0;
  private barShown = false;
  private label = '';

  constructor(private readonly now: () => number = () => performance.now()) {}

  onEvent = (event: DownloadEvent): void => {
    switch (event.type) {
      case 'wait':
        this.line(`Waiting for another download of ${event.name} to finish (${event.holder})`);
        break;
      case 'check':
        this.line(`Checking ${event.path} ...`);
        break;
      case 'present':
        break;
      case 'start':
        this.label = `ggml-${event.name}.bin`;
        this.samples = [];
        this.lastDraw = 0;
        this.line(
          `${event.offset > 0 ? `Resuming at ${mib(event.offset)} MiB` : 'Downloading'} ${this.label}` +
            `${event.total === undefined ? '' : ` (${mib(event.total)} MiB)`} from ${event.url}`,
        );
        break;
      case 'progress':
        this.progress(event.received, event.total);
        break;
      case 'retry':
        this.line(
          `Attempt ${event.attempt} failed (${event.reason}); retrying in ${duration(event.delayMs / 1000)}`,
        );
        break;
      case 'done':
        this.endBar();
        break;
    }
  };

  private progress(received: number, total: number | undefined): void {
    const at = this.now();
    this.samples.push({ at, bytes: received });
    while (this.samples.length > 2 && at - (this.samples[0]?.at ?? at) > 5000) this.samples.shift();
    const complete = total !== undefined && received >= total;
    const interval = this.tty ? 100 : 5000;
    if (!complete && at - this.lastDraw < interval) return;
    this.lastDraw = at;
    const first = this.samples[0] ?? { at, bytes: received };
    const speed = at > first.at ? ((received - first.bytes) / (at - first.at)) * 1000 : 0;
    const parts: string[] = [];
    if (total) {
      const fraction = Math.min(received / total, 1);
      parts.push(`${(fraction * 100).toFixed(1).padStart(5)}%`, `${mib(received)}/${mib(total)} MiB`);
    } else {
      parts.push(`${mib(received)} MiB`);
    }
    parts.push(`${mib(speed)} MiB/s`);
    if (total)
      parts.push(`ETA ${complete ? '0:00' : duration(speed > 0 ? (total - received) / speed : Number.NaN)}`);
    const text = parts.join('  ');
    if (!this.tty) {
      console.log(`${this.label}  ${text}`);
      return;
    }
    const columns = process.stdout.columns || 80;
    const barWidth = Math.max(10, Math.min(30, columns - this.label.length - 58));
    const filled = total ? Math.round(Math.min(received / total, 1) * barWidth) : 0;
    const bar = total ? ` [${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}]` : '';
    process.stdout.write(`\r\x1b[2K${this.label}${bar} ${text}`);
    this.barShown = true;
  }

  private endBar(): void {
    if (this.barShown) process.stdout.write('\n');
    this.barShown = false;
  }

  line(text: string): void {
    this.endBar();
    console.log(text);
  }
}
