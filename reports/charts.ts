/**
 * Charts: Vega-Lite specs compiled and rendered to SVG at report time, headless in Node
 * (vega's View with renderer 'none', then View.toSVG()). No script is needed to see them, and
 * nothing is fetched: data is inline.
 */
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { PALETTE } from './style.js';

const CONFIG = {
  background: 'transparent',
  font: 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif',
  range: { category: PALETTE },
  axis: { labelFontSize: 11, titleFontSize: 12, gridOpacity: 0.7 },
  legend: { labelFontSize: 11, titleFontSize: 12, labelLimit: 260, symbolOpacity: 1 },
  view: { stroke: null },
};

let chartCount = 0;

/**
 * Render one Vega-Lite spec to an SVG string. Element ids inside the SVG (clip paths,
 * gradients) get a per-chart prefix so that several inline SVGs never share an id.
 */
export async function renderChart(spec: TopLevelSpec, description: string): Promise<string> {
  const compiled = compile({ ...spec, config: { ...CONFIG, ...(spec as { config?: object }).config } } as TopLevelSpec).spec;
  const view = new View(parse(compiled), { renderer: 'none' });
  try {
    const svg = await view.toSVG();
    const prefix = `c${++chartCount}-`;
    return svg
      .replace(/\bid="([^"]+)"/g, `id="${prefix}$1"`)
      .replace(/url\(#([^)]+)\)/g, `url(#${prefix}$1)`)
      .replace('<svg ', `<svg role="img" aria-label="${description.replace(/[&<>"']/g, '')}" `);
  } finally {
    view.finalize();
  }
}
