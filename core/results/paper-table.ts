/**
 * The paper's tables (SPADE's eval_offline/table_mapping.py): each column a figure of a
 * published benchmark's suite, read from the `scores` of a run's suites under the key SPADE's
 * evaluation writes it, one row per run (a model or checkpoint). A figure is shown as SPADE's
 * table renders it, a percentage with one decimal, with its 95% interval where the run has one;
 * a figure the run lacks is an em dash.
 */
import type { RunResults } from './results.js';
import type { SuiteScore } from '../concepts/suite.js';

export interface PaperColumn {
  label: string;
  key: string;
}

/** RQ1, the games table, and RQ2, the tool-use table, as SPADE's table_mapping.py names them. */
export const PAPER_TABLES: Record<string, readonly PaperColumn[]> = {
  RQ1: [
    { label: 'AIME-25', key: 'aime2025_pass1' },
    { label: 'AIME-26', key: 'aime2026_pass1' },
    { label: 'GPQA-Diamond', key: 'gpqa_diamond_avg_at_n' },
    { label: 'LiveCodeBench', key: 'livecodebench_pass_at_1' },
    { label: 'RG:Math', key: 'gem_eval/category_rg_math/win_rate' },
    { label: 'RG:Algorithmic', key: 'gem_eval/category_rg_algorithmic/win_rate' },
    { label: 'RG:Cognition', key: 'gem_eval/category_rg_cognition/win_rate' },
    { label: 'RG:Logic', key: 'gem_eval/category_rg_logic/win_rate' },
  ],
  RQ2: [
    { label: 'BFCL-v4', key: 'bfcl_overall_acc' },
    { label: 'Tau2-Retail', key: 'gem_eval/tau2_retail_base/pass_at_1' },
    { label: 'Tau2-Airline', key: 'gem_eval/tau2_airline_base/pass_at_1' },
    { label: 'Tau2-Telecom', key: 'gem_eval/tau2_telecom_base/pass_at_1' },
    { label: 'ACEBench-N', key: 'acebench/en/normal' },
    { label: 'ACEBench-S', key: 'acebench/en/special' },
    { label: 'ACEBench-A', key: 'acebench/en/agent' },
    { label: 'ACEBench', key: 'acebench/en/overall' },
  ],
};

export interface PaperRow {
  /** The run's name in the table: its agent (the model), with the run's folder when agents repeat. */
  method: string;
  cells: (SuiteScore | undefined)[];
}

/** A run's figure under `key`: the first of its suites that has it. */
export function scoreOf(run: RunResults, key: string): SuiteScore | undefined {
  for (const suite of run.suites) {
    const score = suite.scores?.[key];
    if (score) return score;
  }
  return undefined;
}

/** The table's figures that more than one suite of `run` records (its cell shows the first's), with those suites. */
export function figuresOfSeveralSuites(run: RunResults, rq = 'RQ1'): { label: string; suites: string[] }[] {
  return (PAPER_TABLES[rq] ?? []).flatMap((column) => {
    const suites = run.suites.filter((suite) => suite.scores?.[column.key] !== undefined).map((suite) => suite.id);
    return suites.length > 1 ? [{ label: column.label, suites }] : [];
  });
}

/** True when a run has any figure of the table. */
export const hasPaperFigures = (run: RunResults, rq = 'RQ1'): boolean => (PAPER_TABLES[rq] ?? []).some((c) => scoreOf(run, c.key) !== undefined);

/** One row per run. `names` (the run folders) tell apart runs of the same agent. */
export function paperRows(runs: readonly RunResults[], rq: string, names: readonly string[] = []): PaperRow[] {
  const columns = PAPER_TABLES[rq];
  if (!columns) throw new RangeError(`unknown table ${rq}`);
  const agents = runs.map((r) => r.run.agent);
  return runs.map((run, i) => {
    const repeated = agents.filter((a) => a === run.run.agent).length > 1;
    const method = repeated && names[i] ? `${run.run.agent} (${names[i]})` : run.run.agent;
    return { method, cells: columns.map((c) => scoreOf(run, c.key)) };
  });
}

/**
 * A figure as SPADE's table writes it, Python's `f"{value * 100:.1f}"`: a percentage with one
 * decimal. Both Python and toFixed round the double's exact value, but a value exactly halfway
 * (24/1920 is 1.25%) goes to the even digit in Python (1.2) and up in toFixed (1.3): such a tie
 * is told by the exact decimal expansion (at most 60 digits for a share of at least 1/1000).
 */
export function percentCell(value: number): string {
  const percent = value * 100;
  const exact = Math.abs(percent).toFixed(60);
  const tie = /\.\d50*$/.test(exact);
  const lastKept = Number(exact[exact.indexOf('.') + 1]);
  if (tie && lastKept % 2 === 0) return `${percent < 0 ? '-' : ''}${exact.slice(0, exact.indexOf('.') + 2)}`;
  return percent.toFixed(1);
}

/** A figure and its interval, `62.3 (58.1–66.2)`; an em dash when missing. */
export function figureText(score: SuiteScore | undefined): string {
  if (!score) return '—';
  const interval = score.low !== undefined && score.high !== undefined ? ` (${percentCell(score.low)}–${percentCell(score.high)})` : '';
  return `${percentCell(score.value)}${interval}`;
}
