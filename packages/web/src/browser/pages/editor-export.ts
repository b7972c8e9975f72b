/// <reference lib="dom" />
/**
 * The editor's exports: what it published to the output room, each caption with the time it went
 * out (corrections replace the text), downloaded as SRT, WebVTT or text.
 */
import { exportFile, exportStem, isExportFormat, SentLog } from '../lib/caption-export.js';
import { downloadText } from '../lib/dom.js';

export const sentLog = new SentLog();

/** Buttons `data-export="srt|vtt|txt"` download the reviewed captions in that format. */
export function wireExports(root: ParentNode = document): void {
  for (const button of Array.from(root.querySelectorAll<HTMLButtonElement>('button[data-export]'))) {
    button.addEventListener('click', () => {
      const format = button.dataset.export ?? '';
      const captions = sentLog.captions;
      if (!isExportFormat(format) || captions.length === 0) return;
      const file = exportFile(captions, format, exportStem('reviewed-captions', new Date(captions[0]!.at)));
      downloadText(file.name, file.text, file.type);
    });
  }
}
