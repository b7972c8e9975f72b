/** The capture page's transcript: committed lines with their time, and the .txt download (pure). */

export interface TranscriptLine {
  at: Date;
  text: string;
  /** English translation in mode `both`. */
  translation?: string;
}

const pad = (n: number) => String(n).padStart(2, '0');
const clock = (date: Date) => `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;

export class Transcript {
  readonly lines: TranscriptLine[] = [];

  add(line: TranscriptLine): void {
    this.lines.push(line);
  }

  get empty(): boolean {
    return this.lines.length === 0;
  }

  /** One line per caption, `[hh:mm:ss] text`, translation on the next line; ends with a newline. */
  toText(): string {
    return this.lines
      .map((line) => {
        const head = `[${clock(line.at)}] ${line.text}`;
        return line.translation ? `${head}\n[${clock(line.at)}] (en) ${line.translation}` : head;
      })
      .map((line) => `${line}\n`)
      .join('');
  }

  /** `captions-YYYY-MM-DD-hhmm.txt` for the first line's date (or `now`). */
  fileName(now = new Date()): string {
    const date = this.lines[0]?.at ?? now;
    return `captions-${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}-${pad(date.getHours())}${pad(date.getMinutes())}.txt`;
  }
}
