/**
 * Progress on the terminal: one redrawn status line on a TTY (rounds, environments,
 * episodes, model calls in flight, ETA), plain lines otherwise (one per round and per suite).
 */
import type { ProgressEvent } from '../run/run-setup.js';
import type { SuiteResult } from '../results/results.js';
import { headlineOf, metricsShownIn } from '../metrics/table.js';
import { figureText, percent } from '../../reports/format.js';

export interface ProgressDisplay {
  onEvent(event: ProgressEvent): void;
  /** Print a line without breaking the status line. */
  log(line: string): void;
  /** Show model calls in flight (of the most allowed) on the status line. */
  watchCalls(calls: () => { inFlight: number; limit: number; retrying?: number }): void;
  done(): void;
}

/**
 * Text a program or a model wrote (an error's message, a check's detail), made one safe line
 * for a terminal: control characters (ESC, CR, NUL, BEL, newlines...) and the marks that
 * reorder text (bidi overrides) are shown escaped (`\x1b`, `\n`, `\u202e`), so none can move
 * the cursor, erase a line, or forge a line of spade-bench's own.
 */
export function terminalLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\t') return ' ';
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** A rate as a percentage; `n/a` when there is nothing to measure (null: no episode decided). */
export const pct = (x: number | null): string => (x === null ? 'n/a' : `${(100 * x).toFixed(1)}%`);

/** A duration for people: `42 s`, `3 min 05 s`, `2 h 10 min`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** Rounds are numbered from 0 everywhere (console, results, report, program ids `r0-e0`). */
const roundOf = (round: number, rounds: number): string => `round ${round} of 0–${rounds - 1}`;

/** A suite's metrics in one line: the headline of every metric the metrics table shows on the console. */
export function metricsLine(metrics: SuiteResult['metrics']): string {
  return metricsShownIn('console').flatMap((row) => {
    const figure = headlineOf(row, metrics);
    return figure ? [`${row.label} ${figureText(figure, row.format, row.unit)}`] : [];
  }).join(', ');
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr, tty = Boolean(stream.isTTY)): ProgressDisplay {
  // Until the first suite starts, the line says what the run is doing.
  let suite = 'starting';
  let environments = 0;
  let totalEnvironments = 0;
  let episodes = 0;
  let totalEpisodes = 0;
  let round = '';
  let started = performance.now();
  let lastDraw = 0;
  let drawn = false;
  let calls: (() => { inFlight: number; limit: number; retrying?: number }) | undefined;
  let ticker: NodeJS.Timeout | undefined;

  const clear = (): void => {
    if (tty && drawn) stream.write('\r\x1b[2K');
    drawn = false;
  };
  const draw = (force = false): void => {
    if (!tty) return;
    const now = performance.now();
    if (!force && now - lastDraw < 100) return;
    lastDraw = now;
    const elapsed = (now - started) / 1000;
    const fraction = totalEpisodes ? Math.min(1, episodes / totalEpisodes) : 0;
    const eta = fraction > 0.02 ? `ETA ${duration(elapsed / fraction - elapsed)}` : 'ETA estimating';
    const inFlight = calls?.();
    // A call waiting out a 429's retry-after holds no request: the wait is shown, so a run that waits does not look stuck.
    const callsPart = inFlight ? ` · calls in flight ${inFlight.inFlight}/${inFlight.limit}${inFlight.retrying ? ` · ${inFlight.retrying} waiting to retry` : ''}` : '';
    const line = `${suite}${round} · environments ${environments}/${totalEnvironments} · episodes ${episodes}/~${totalEpisodes}${callsPart} · ${eta}`;
    stream.write(`\r\x1b[2K${line.slice(0, (stream.columns ?? 100) - 1)}`);
    drawn = true;
  };
  const log = (line: string): void => {
    clear();
    stream.write(`${line}\n`);
    draw(true);
  };

  return {
    log,
    watchCalls(source) {
      calls = source;
      // Calls come and go between events: redraw while the run waits on a model.
      if (tty && !ticker) (ticker = setInterval(() => draw(), 250)).unref();
    },
    onEvent(event) {
      switch (event.type) {
        case 'suite-start':
          suite = event.suite;
          round = '';
          environments = 0;
          episodes = 0;
          totalEnvironments = event.environments;
          totalEpisodes = event.episodes;
          started = performance.now();
          if (!tty) log(`${event.suite}: ${event.kind === 'selfplay' ? 'self-play' : event.kind === 'curriculum' ? 'curriculum pool' : 'static suite'}, ${event.environments} environments`);
          break;
        case 'designed':
          round = ` round ${event.round}`;
          break;
        case 'environment':
          environments++;
          break;
        case 'episode':
          episodes++;
          break;
        case 'round': {
          const s = event.summary;
          if (s.window) {
            log(`${event.suite} ${roundOf(s.round, event.rounds)}: ${s.valid}/${s.proposed} valid, solve rate ${pct(s.solveRate)}, mean difficulty ${s.meanDifficulty?.toFixed(2) ?? 'n/a'}, windows up to ${s.window.maxHigh} (mean top ${s.window.meanHigh.toFixed(2)}, ${s.window.promotions} moved up)`);
            break;
          }
          log(`${event.suite} ${roundOf(s.round, event.rounds)}: ${s.valid}/${s.proposed} valid${s.errored ? ` (+${s.errored} errored)` : ''}, solve rate ${pct(s.solveRate)} (with hint ${pct(s.hintSolveRate)})${s.meanDifficulty === null ? '' : `, mean difficulty ${s.meanDifficulty.toFixed(2)}`}, designer reward ${s.designerReward?.toFixed(3) ?? 'n/a'}`);
          break;
        }
        case 'notice':
          log(event.message);
          break;
        case 'suite-end': {
          const m = event.result.metrics;
          log(`${event.suite}: ${metricsLine(m)}`);
          const types = Object.entries(m.byGameType);
          if (types.length > 1 || types.some(([type]) => type === 'tool-use')) {
            const parts = types.map(([type, g]) => `${type} ${g.valid}/${g.environments} valid${g.episodes ? `, success ${percent(g.successRate)}` : ''}${g.toolCallsPerEpisode !== undefined ? `, ${g.toolCallsPerEpisode.toFixed(1)} tool calls/episode` : ''}`);
            log(`  by game type: ${parts.join('; ')}`);
          }
          break;
        }
      }
      draw();
    },
    done() {
      if (ticker) clearInterval(ticker);
      ticker = undefined;
      clear();
    },
  };
}
