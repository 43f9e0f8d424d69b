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
