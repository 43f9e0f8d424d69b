// The games table's cells are written as SPADE's render_table writes them, with Python's
// f"{v * 100:.1f}". The expected texts below are what Debian's python3 printed for these shares.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { percentCell } from '../../../core/results/paper-table.js';

test('a cell rounds as Python\'s format does: exact halves to the even digit, the rest as toFixed', () => {
  const python: [number, number, string][] = [
    [24, 1920, '1.2'], [72, 1920, '3.8'], [99, 1584, '6.2'], [1, 80, '1.2'], [3, 80, '3.8'],
    [1, 8, '12.5'], [0, 1, '0.0'], [1, 1, '100.0'], [1, 3, '33.3'], [2, 3, '66.7'], [27, 192, '14.1'], [45, 288, '15.6'],
  ];
  for (const [k, n, text] of python) assert.is(percentCell(k / n), text, `${k}/${n}`);
});

test.run();
