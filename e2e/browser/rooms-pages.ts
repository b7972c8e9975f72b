/**
 * The caption rooms suite's ways into its pages: the hub with a token typed, a room's line, a
 * link's fragment, a status line's text, and whether a list of rooms fits the viewport.
 */
import type { BrowserContext, Page } from 'playwright-core';

/** The hub at `hub` with the service access token typed in step 1 (as an operator does, no fill-in). */
export async function openHub(context: BrowserContext, hub: string, token: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(hub);
  await page.locator('#api-key').fill(token);
  await page.locator('#api-key').press('Tab');
  return page;
}

/** A room's line on the hub's board. */
export const row = (page: Page, id: string) => page.locator(`#rooms tr[data-id="${id}"]`);

/** A link's fragment parameters (where the pages' tokens are). */
export const fragmentOf = (href: string | null) =>
  Object.fromEntries(new URLSearchParams(new URL(href ?? '').hash.slice(1)));

/** Waits until the element of `selector` has exactly `text` (15 s); `logs` for the failure. */
export async function waitForText(
  page: Page,
  selector: string,
  text: string,
  logs: () => string,
): Promise<void> {
  try {
    await page.waitForFunction(
      ([s, t]) => document.querySelector(s!)?.textContent?.trim() === t,
      [selector, text],
      {
        timeout: 15_000,
      },
    );
  } catch (error) {
    const now = await page
      .locator(selector)
      .first()
      .textContent()
      .catch(() => null);
    throw new Error(`${selector} never read "${text}" (it reads "${now}")\n${logs()}`, { cause: error });
  }
}

/** Sideways scrolling, and the rows that do not fit the width or take more than `maxHeight` px. */
export async function layout(page: Page, rows: string, maxHeight: number) {
  return page.evaluate(
    ([selector, tallest]) => {
      const width = document.documentElement.clientWidth;
      const bad = Array.from(document.querySelectorAll<HTMLElement>(selector!))
        .map((node) => ({ id: node.dataset.id, box: node.getBoundingClientRect() }))
        .filter(
          ({ box }) => box.left < 0 || box.right > width || box.height > Number(tallest) || box.height === 0,
        )
        .map(
          ({ id, box }) =>
            `${id}: ${Math.round(box.left)}-${Math.round(box.right)} x ${Math.round(box.height)}`,
        );
      return { sideways: document.documentElement.scrollWidth > width, bad };
    },
    [rows, String(maxHeight)],
  );
}
