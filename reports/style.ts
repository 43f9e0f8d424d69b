/**
 * The report's stylesheet: light and dark (prefers-color-scheme), readable chart colours, and
 * CSS that recolours the charts' SVGs (axes, labels, grid) to the current theme.
 */

/** Categorical colours readable on both the light and the dark background (Tableau 10, adjusted). */
export const PALETTE = ['#4c78a8', '#f58518', '#54a24b', '#e45756', '#72b7b2', '#b279a2', '#eeca3b', '#9d755d', '#ff9da6', '#bab0ac'];

export const STYLE = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1d2330; --muted: #5b6475; --card: #f5f7fa; --line: #d9dee7;
  --accent: #2f6fb0; --warn-bg: #fff1e6; --warn-fg: #8a3b00; --warn-line: #f0a860; --bad: #b42318; --good: #1f7a3a; --code: #f0f2f5; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #14171c; --fg: #e6e9ef; --muted: #9aa3b2; --card: #1c2027; --line: #323844;
    --accent: #78a9e0; --warn-bg: #3a2410; --warn-fg: #ffd2a8; --warn-line: #b86a20; --bad: #ff8a80; --good: #7fd49a; --code: #0f1216; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 1400px; margin: 0 auto; padding: 24px; }
h1 { font-size: 26px; margin: 0 0 4px; } h2 { font-size: 20px; margin: 36px 0 12px; border-bottom: 1px solid var(--line); padding-bottom: 6px; }
h3 { font-size: 16px; margin: 20px 0 8px; }
a { color: var(--accent); }
.muted { color: var(--muted); }
nav.toc { display: flex; flex-wrap: wrap; gap: 14px; margin: 12px 0 0; }
.runs { display: grid; grid-template-columns: repeat(auto-fit, minmax(380px, 1fr)); gap: 16px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; min-width: 0; }
.card dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0 0; }
.card dt { color: var(--muted); } .card dd { margin: 0; overflow-wrap: anywhere; }
.warning { background: var(--warn-bg); color: var(--warn-fg); border: 2px solid var(--warn-line); border-radius: 8px; padding: 10px 12px; margin: 10px 0; font-weight: 600; }
.notice { border-left: 4px solid var(--accent); padding: 6px 10px; margin: 10px 0; background: var(--bg); }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; font-size: 13px; }
td small { color: var(--muted); }
.table-wrap { overflow-x: auto; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 520px), 1fr)); gap: 16px; }
figure { margin: 0; background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 12px; overflow-x: auto; min-width: 0; }
figcaption { font-weight: 600; margin-bottom: 6px; }
figure svg { display: block; width: 100%; min-width: 440px; height: auto; }
figure > div.muted { font-size: 13px; margin-top: 6px; }
table.summary { width: auto; min-width: 60%; }
table.summary td { white-space: nowrap; }
table.summary thead th { vertical-align: bottom; max-width: 190px; }
table.summary td small, table.summary th small { display: block; font-weight: 400; }
table.summary .value { font-weight: 600; font-size: 15.5px; }
table.summary tr.pool th { color: var(--fg); font-size: 15px; padding-top: 14px; border-bottom: 2px solid var(--line); }
table.summary tr.pool th small { display: inline; margin-left: 6px; }
table.summary th.metric { color: var(--muted); font-size: 14px; font-weight: 400; }
@media (max-width: 900px) { table.summary td, table.summary th { padding: 5px 7px; } table.summary .value { font-size: 14.5px; } table.summary td:not(.diff) { white-space: normal; min-width: 96px; } table.summary td .interval { white-space: nowrap; } }
table.summary td.diff, table.summary th.diff { background: var(--card); }
table.round-log th, table.round-log td { padding: 5px 6px; font-size: 12.5px; }
table.summary td.excludes-zero .value { color: var(--accent); }
table.summary .mark { margin-left: 2px; }
table.summary small.beside { margin-top: 3px; }
.swatch { display: inline-block; width: 11px; height: 11px; border-radius: 2px; margin-right: 6px; vertical-align: baseline; }
.warning.errored ul.error-classes { margin: 6px 0 0; padding-left: 22px; font-weight: 400; }
.warning.errored q { font-style: italic; }
.muted-warning { font-weight: 400; margin-top: 4px; }
figure svg text { fill: var(--fg); }
figure svg .role-axis-grid line, figure svg .role-axis-grid path { stroke: var(--line); }
figure svg .role-axis-domain line, figure svg .role-axis-tick line, figure svg .role-axis-domain path, figure svg .role-axis-tick path { stroke: var(--muted); }
.badge { display: inline-block; padding: 0 8px; border-radius: 999px; font-size: 12px; font-weight: 600; border: 1px solid currentColor; }
.badge.valid { color: var(--good); } .badge.invalid { color: var(--bad); } .badge.unproven { color: var(--muted); } .badge.game-type { color: var(--accent); }
.filters { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin: 10px 0; }
.filters input, .filters select { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 5px 8px; }
.filters input { min-width: 260px; }
details.env { border: 1px solid var(--line); border-radius: 8px; margin: 6px 0; background: var(--card); }
details.env > summary { cursor: pointer; padding: 8px 12px; display: flex; gap: 10px; flex-wrap: wrap; align-items: baseline; }
details.env > div { padding: 0 12px 12px; }
pre { background: var(--code); border: 1px solid var(--line); border-radius: 6px; padding: 10px; overflow: auto; max-height: 420px; font: 12.5px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
ol.trajectory { padding-left: 22px; } ol.trajectory li { margin-bottom: 6px; }
.check-ok { color: var(--good); } .check-fail { color: var(--bad); }
footer { margin-top: 40px; color: var(--muted); font-size: 13px; }
`;
