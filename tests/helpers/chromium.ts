/**
 * Debian's Chromium driven by playwright-core, as the report tests use it: where it is, the
 * flags it is launched with, and what the tests measure in a page (overlapping chart labels,
 * errors on the console).
 */
import { existsSync } from 'node:fs';
import type { Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Why Chromium tests cannot run here, or undefined. */
export const chromiumMissing = (): string | undefined => (existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is not installed`);

/** Console errors and page errors of `page`, from now on. */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

export interface LabelOverlap {
  chart: string;
  a: string;
  b: string;
}

/**
 * Pairs of x-axis labels (`text.x-label`) of one chart whose boxes, as the browser lays them
 * out, intersect; and how many labels were measured, so that a page without labels cannot pass.
 */
export async function xLabelOverlaps(page: Page): Promise<{ labels: number; overlaps: LabelOverlap[] }> {
  return page.$$eval('svg', (svgs) => {
    const overlaps: { chart: string; a: string; b: string }[] = [];
    let labels = 0;
    for (const svg of svgs) {
      // The page's own types (this project compiles without the DOM's): what is read of each label.
      const texts = Array.from(svg.querySelectorAll('text.x-label')) as unknown as { textContent: string | null; getBoundingClientRect(): { left: number; right: number; top: number; bottom: number } }[];
      const boxes = texts.map((text) => ({ text: text.textContent ?? '', box: text.getBoundingClientRect() }));
      labels += boxes.length;
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
          const a = boxes[i]!.box;
          const b = boxes[j]!.box;
          if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) {
            overlaps.push({ chart: svg.getAttribute('aria-label') ?? '', a: boxes[i]!.text, b: boxes[j]!.text });
          }
        }
      }
    }
    return { labels, overlaps };
  });
}
