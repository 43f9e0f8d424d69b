import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { drawChart } from '../../reports/svg-chart.js';
import { barChart, lineChart } from '../../reports/chart-specs.js';
import { positionAxis, spansMagnitudes, valueAxis } from '../../reports/svg-axis.js';

/** Heights of the bars of a drawn chart, in order. */
const barHeights = (svg: string): number[] =>
  [...svg.matchAll(/class="mark-bar" d="M[\d.]+,([\d.]+)h[\d.]+V([\d.]+)/g)].map((m) => Number(m[2]) - Number(m[1]));

test('a model at 20 steps/s stays visible beside one at 6,345: the axis turns logarithmic', () => {
  assert.ok(spansMagnitudes([20, 6345]));
  assert.not.ok(spansMagnitudes([499, 1717]));
  assert.ok(spansMagnitudes([0, 20, 6345]), 'zeros are drawn apart and do not prevent a log axis');
  const rows = [{ group: 'gsm8k', series: 'model', value: 20 }, { group: 'gsm8k', series: 'reference', value: 6345 }];
  const log = drawChart(barChart(rows, 'steps / s', false, 'run', { log: true }));
  const [small, large] = barHeights(log);
  assert.ok(small! > 15 && large! > small!, `log axis: ${small} px beside ${large} px`);
  assert.match(log, /steps \/ s \(log scale\)/);
  const linear = drawChart(barChart(rows, 'steps / s', false, 'run'));
  const [tiny] = barHeights(linear);
  assert.ok(tiny! < 1, `a linear axis (as before) leaves it at ${tiny} px`);
  // Values of one magnitude keep the plainer linear axis, even where a log one is allowed.
  assert.is(valueAxis([499, 1717], { log: true }).log, false);
  assert.equal(valueAxis([20, 6345], { log: true }).ticks, [10, 100, 1000, 10000]);
});

test('horizons from 1 to 64 on a log x axis; few integers are labelled exactly', () => {
  assert.is(positionAxis([1, 2, 4, 8, 16, 32, 64], { integer: true, log: true }).log, true);
  assert.equal(positionAxis([1, 2, 3], { integer: true }).ticks, [1, 2, 3]);
});

test('a null value is drawn "n/a", a zero "0", never an invisible bar', () => {
  const svg = drawChart(barChart([{ group: 'spade', series: 'a', value: 0.5 }, { group: 'spade', series: 'b', value: null }, { group: 'spade', series: 'c', value: 0, lo: 0, hi: 0.03 }], 'success', true));
  assert.is(barHeights(svg).length, 1);
  assert.match(svg, />n\/a<\/text>/);
  assert.match(svg, />0<\/text>/);
  assert.is(svg.match(/class="mark-rule"/g)?.length, 1, 'the interval of the zero is drawn');
});

test('series keep the colour they are given; those of one colour differ by dash; a repeated series is named so and the first is wider', () => {
  const rows = [
    { series: 'A · spade', colour: '#111111', x: 1, value: 0.5 }, { series: 'A · spade', colour: '#111111', x: 2, value: 0.6 },
    { series: 'A · gsm8k', colour: '#111111', x: 1, value: 0.2 }, { series: 'A · gsm8k', colour: '#111111', x: 2, value: 0.3 },
    { series: 'B · spade', colour: '#222222', x: 1, value: 0.5 }, { series: 'B · spade', colour: '#222222', x: 2, value: 0.6 },
  ];
  const svg = drawChart(lineChart(rows, 'round', 'solve rate', { asPercent: true, integerX: true }));
  const lines = [...svg.matchAll(/<path class="mark-line"[^>]*stroke="(#\d+)" stroke-width="([\d.]+)"( stroke-dasharray="[^"]+")?[^>]*><title>([^<]+)<\/title>/g)]
    .map((m) => ({ colour: m[1], width: Number(m[2]), dashed: Boolean(m[3]), name: m[4] }));
  assert.equal(lines.map((l) => [l.name, l.colour, l.dashed]), [['A · spade', '#111111', false], ['A · gsm8k', '#111111', true], ['B · spade', '#222222', false]]);
  assert.ok(lines[0]!.width > lines[2]!.width, 'the first of two identical series is drawn wider');
  assert.match(svg, /B · spade \(same values as A · spade\)/);
});

test('group names that do not fit their slot wrap, or turn upright', () => {
  const few = drawChart(barChart(['spade', 'procedural'].map((group) => ({ group, series: 'a', value: 0.5 })), 'validity', true));
  assert.not.match(few, /rotate\(-90\)" font-size="11" text-anchor="end"/);
  const names = ['reasoning-gym-arc-1d', 'livecodebench-v6', 'gpqa-diamond', 'spadeprocedural-pool-gpt55', 'humaneval', 'rlve-adaptive', 'procedural', 'spade', 'gsm8k', 'aime-2025', 'rlve', 'jsonl-custom'];
  const many = drawChart(barChart(names.flatMap((group) => ['a', 'b', 'c'].map((series) => ({ group, series, value: 0.5 }))), 'validity', true));
  assert.is(many.match(/class="x-label"/g)?.length, names.length);
  assert.ok(/<tspan/.test(many) || /class="x-label" transform="translate\([^)]+\) rotate\(-90\)"/.test(many));
});

test.run();
