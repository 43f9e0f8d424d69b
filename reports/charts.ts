/**
 * Charts: drawn as inline SVG when the report is made (svg-chart.ts). No script is needed to
 * see them, and nothing is fetched: data is inline. Drawing a chart costs well under a
 * millisecond and loads no charting library.
 */
import { drawChart, type ChartSpec } from './svg-chart.js';

/** Render one chart spec to an SVG string, labelled for assistive technology with `description`. */
export async function renderChart(spec: ChartSpec, description: string): Promise<string> {
  return drawChart(spec).replace('<svg ', `<svg role="img" aria-label="${description.replace(/[&<>"']/g, '')}" `);
}
