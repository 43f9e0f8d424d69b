/** Every family of the reference designer and the procedural suite, in a fixed order (the tool-use games last). */
import type { Family } from '../family.js';
import { accountDesk } from './account-desk.js';
import { archiveSearch } from './archive-search.js';
import { cipherDecoding } from './cipher-decoding.js';
import { gridKeysDoors } from './grid-keys-doors.js';
import { lockClues } from './lock-clues.js';
import { mastermind } from './mastermind.js';
import { modularEquation } from './modular-equation.js';
import { restockOrder } from './restock-order.js';
import { sequenceCompletion } from './sequence-completion.js';
import { subsetSum } from './subset-sum.js';
import { towerOfHanoi } from './tower-of-hanoi.js';

export const FAMILIES: readonly Family[] = [
  modularEquation,
  subsetSum,
  sequenceCompletion,
  cipherDecoding,
  lockClues,
  gridKeysDoors,
  towerOfHanoi,
  mastermind,
  archiveSearch,
  restockOrder,
  accountDesk,
];

export function familyNamed(name: string): Family | undefined {
  return FAMILIES.find((family) => family.name === name);
}
