/**
 * What the report needs to know about each run beyond its numbers: a unique short name for
 * legends, and whether a role is the offline reference policy rather than a model.
 */
import type { RunInfo, RunResults } from '../core/results/results.js';

/** One unique series name per run (its id; repeated ids get `#2`, `#3`...). */
export function runNames(runs: readonly RunResults[]): string[] {
  const seen = new Map<string, number>();
  return runs.map(({ run }) => {
    const count = (seen.get(run.id) ?? 0) + 1;
    seen.set(run.id, count);
    return count === 1 ? run.id : `${run.id} #${count}`;
  });
}

/** True when the role is the built-in reference policy (from the recorded kind, else its id/label). */
export function isReferenceRole(run: RunInfo, role: 'designer' | 'agent'): boolean {
  const kind = role === 'designer' ? run.designerKind : run.agentKind;
  if (kind) return kind === 'reference';
  const id = role === 'designer' ? run.designer : run.agent;
  const label = role === 'designer' ? run.designerLabel : run.agentLabel;
  return /^reference\b/i.test(id) || /reference policy/i.test(label);
}

/**
 * Which protocols a run followed, in words: the designer side's prompts (spade-bench's own
 * paraphrase or SPADE's, built by SPADE's code), the agent's, the memory, and the self-play
 * plays per environment (plain and hinted).
 */
export function protocolsText(run: RunResults['run']): string {
  const config = run.config as { designerProtocol?: string; agentProtocol?: string; selfplay?: { memory?: string; attempts?: number; plainAttempts?: number; hintedAttempts?: number } };
  const designer = config.designerProtocol === 'spade' ? "SPADE's (its pinned code builds the prompts)" : "spade-bench's paraphrase";
  const agent = config.agentProtocol === 'spade' ? "SPADE's" : "spade-bench's";
  const s = config.selfplay;
  const plain = s?.plainAttempts ?? s?.attempts;
  const plays = plain !== undefined ? `; self-play plays ${plain} plain and ${s?.hintedAttempts ?? plain} hinted per environment` : '';
  return `designer side ${designer}; agent ${agent}; memory ${s?.memory ?? 'own'}${plays}`;
}
