/**
 * CSV as the GPQA release writes it (RFC 4180): a header row, fields separated by commas,
 * quoted fields that hold commas, doubled quotes and line breaks, CRLF or LF line ends.
 */
import { DataError } from '../../core/errors.js';

/** The rows of a CSV text, each a record keyed by the header's names, with the line each row starts on. */
export function parseCsv(text: string, file: string): { line: number; row: Record<string, string> }[] {
  const rows: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  const text2 = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (let i = 0; i < text2.length; i++) {
    const c = text2[i]!;
    if (quoted) {
      if (c === '"' && text2[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else {
        if (c === '\n') line++;
        cell += c;
      }
      continue;
    }
    if (c === '"' && cell === '') quoted = true;
    else if (c === ',') {
      cells.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text2[i + 1] === '\n') i++;
      cells.push(cell);
      if (cells.length > 1 || cells[0] !== '') rows.push({ line: rowLine, cells });
      cells = [];
      cell = '';
      line++;
      rowLine = line;
    } else cell += c;
  }
  if (quoted) throw new DataError(file, rowLine, 'a quoted field is not closed');
  if (cell !== '' || cells.length) {
    cells.push(cell);
    rows.push({ line: rowLine, cells });
  }
  const [header, ...body] = rows;
  if (!header) return [];
  return body.map(({ line: at, cells: values }) => {
    if (values.length !== header.cells.length) throw new DataError(file, at, `${values.length} fields, the header has ${header.cells.length}`);
    return { line: at, row: Object.fromEntries(header.cells.map((name, i) => [name, values[i]!])) };
  });
}
