/** The reference agent's solvers, one per family. */
import type { Solver } from './solver.js';
import { accountDeskSolver } from './account-desk.js';
import { archiveSearchSolver } from './archive-search.js';
import { cipherDecodingSolver } from './cipher-decoding.js';
import { gridKeysDoorsSolver } from './grid-keys-doors.js';
import { lockCluesSolver } from './lock-clues.js';
import { mastermindSolver } from './mastermind.js';
import { modularEquationSolver } from './modular-equation.js';
import { restockOrderSolver } from './restock-order.js';
import { sequenceCompletionSolver } from './sequence-completion.js';
import { subsetSumSolver } from './subset-sum.js';
import { towerOfHanoiSolver } from './tower-of-hanoi.js';
import { RLVE_SOLVERS } from './rlve.js';

export const SOLVERS: readonly Solver[] = [
  modularEquationSolver,
  subsetSumSolver,
  sequenceCompletionSolver,
  cipherDecodingSolver,
  lockCluesSolver,
  gridKeysDoorsSolver,
  towerOfHanoiSolver,
  mastermindSolver,
  archiveSearchSolver,
  restockOrderSolver,
  accountDeskSolver,
  ...RLVE_SOLVERS,
];

/** The solver whose family title the observation carries, if any. */
export function solverFor(observation: string): Solver | undefined {
  return SOLVERS.find((solver) => (solver.matches ? solver.matches(observation) : observation.includes(solver.title)));
}
