/**
 * Archive search, a tool-use game (SPADE's Data Retrieval skill, with error recovery): find one
 * record in a dated archive of folders and files through simulated file tools, and report a
 * value from it. Difficulty grows the archive faster than the turn budget, so searching folders
 * blindly runs out of turns; the hint tells how the folders are organised.
 */
import { atDifficulty, type Family } from '../family.js';
import { toolUseProgram, type ToolBinding } from './program-templates.js';

export const ARCHIVE_SEARCH_TITLE = 'Archive search (tool use).';

const FOLDERS = [3, 4, 6, 8, 11, 14, 18, 23, 30, 40];
const FILES_PER_FOLDER = [2, 2, 3, 3, 3, 4, 4, 4, 5, 5];
const MAX_TURNS = [8, 8, 9, 9, 10, 10, 11, 11, 12, 12];

/** Two namings of the same tools (a program uses one), so a player must read the tool schemas. */
const NAMINGS: readonly ToolBinding[][] = [
  [
    { role: 'listFolders', name: 'list_folders' },
    { role: 'listFiles', name: 'list_files' },
    { role: 'search', name: 'search_folder' },
    { role: 'read', name: 'read_file' },
    { role: 'size', name: 'folder_size' },
    { role: 'compress', name: 'compress_folder' },
    { role: 'restore', name: 'restore_folder' },
  ],
  [
    { role: 'listFolders', name: 'list_directories' },
    { role: 'listFiles', name: 'ls', rename: { folder: 'path' } },
    { role: 'search', name: 'grep', rename: { folder: 'path', text: 'pattern' } },
    { role: 'read', name: 'cat', rename: { folder: 'path', file: 'name' } },
    { role: 'size', name: 'du', rename: { folder: 'path' } },
    { role: 'compress', name: 'archive_directory', rename: { folder: 'path' } },
    { role: 'restore', name: 'unarchive_directory', rename: { folder: 'path' } },
  ],
];

const BODY = String.raw`
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DOMAINS = [
  { archive: 'sales archive', noun: 'order', key: '#', field: 'total', stem: 'orders', verb: 'placed', lo: 1000, hi: 99999, scale: 100 },
  { archive: 'shipping archive', noun: 'shipment', key: 'S-', field: 'weight', stem: 'manifest', verb: 'shipped', lo: 100, hi: 9999, scale: 10 },
  { archive: 'lab archive', noun: 'sample', key: 'LAB-', field: 'reading', stem: 'results', verb: 'taken', lo: 10, hi: 999, scale: 100 },
  { archive: 'claims archive', noun: 'claim', key: 'CL-', field: 'amount', stem: 'claims', verb: 'filed', lo: 500, hi: 50000, scale: 100 },
];
const folderSchema = { type: 'string', description: 'Folder name, as the folder listing shows it.' };
const TOOLS = {
  listFolders: { description: 'List the folders of the archive.', params: {}, run: (s) => JSON.stringify(s.folders.map((f) => f.name)) },
  listFiles: {
    description: 'List the files in one folder.', params: { folder: folderSchema }, required: ['folder'],
    run: (s, a) => { const f = folderOf(s, a.folder); return typeof f === 'string' ? f : JSON.stringify(f.files.map((x) => x.name)); },
  },
  search: {
    description: 'Search the files of one folder for a text; returns the names of the files that contain it.',
    params: { folder: folderSchema, text: { type: 'string', description: 'Text to look for.' } }, required: ['folder', 'text'],
    run: (s, a) => {
      const f = folderOf(s, a.folder);
      if (typeof f === 'string') return f;
      const text = asText(a.text).trim();
      if (text.length < 2) return 'Error: give at least two characters to search for.';
      const hits = f.files.filter((x) => x.lines.some((line) => line.includes(text))).map((x) => x.name);
      return hits.length ? JSON.stringify(hits) : 'No file in ' + f.name + ' contains "' + text + '".';
    },
  },
  read: {
    description: 'Read one file of a folder.', params: { folder: folderSchema, file: { type: 'string', description: 'File name.' } }, required: ['folder', 'file'],
    run: (s, a) => {
      const f = folderOf(s, a.folder);
      if (typeof f === 'string') return f;
      const file = f.files.find((x) => x.name === asText(a.file).trim());
      if (!file) return 'Error: no file named "' + asText(a.file) + '" in ' + f.name + '. Files: ' + f.files.map((x) => x.name).join(', ');
      return file.lines.join('\n');
    },
  },
  size: {
    description: 'Disk space a folder takes, in kilobytes.', params: { folder: folderSchema }, required: ['folder'],
    run: (s, a) => { const f = folderOf(s, a.folder, true); return typeof f === 'string' ? f : String(f.files.reduce((n, x) => n + x.lines.length * 3, 1)) + ' KB'; },
  },
  compress: {
    description: 'Compress a folder for long-term storage; restore it before using it again.', params: { folder: folderSchema }, required: ['folder'],
    run: (s, a) => { const f = folderOf(s, a.folder, true); if (typeof f === 'string') return f; f.compressed = true; return 'Compressed ' + f.name + '.'; },
  },
  restore: {
    description: 'Restore a compressed folder.', params: { folder: folderSchema }, required: ['folder'],
    run: (s, a) => { const f = folderOf(s, a.folder, true); if (typeof f === 'string') return f; f.compressed = false; return 'Restored ' + f.name + '.'; },
  },
};
/** The folder named, or an error message (a compressed folder cannot be read, unless anyState). */
function folderOf(state, name, anyState) {
  const wanted = asText(name).trim();
  const folder = state.folders.find((f) => f.name === wanted);
  if (!folder) return 'Error: no folder named "' + wanted + '". Folders: ' + state.folders.map((f) => f.name).join(', ');
  if (folder.compressed && !anyState) return 'Error: folder ' + wanted + ' is compressed; restore it first.';
  return folder;
}
function generate(rng, P) {
  const d = pick(rng, DOMAINS);
  const lastYear = 2024 - randInt(rng, 0, 3);
  const quarters = [];
  for (let i = P.folders - 1; i >= 0; i--) {
    const year = lastYear - Math.floor(i / 4);
    quarters.push({ year, q: 4 - (i % 4) });
  }
  quarters.sort((a, b) => a.year - b.year || a.q - b.q);
  const used = new Set();
  const newId = () => { let id; do { id = randInt(rng, 1000, 9999); } while (used.has(id)); used.add(id); return id; };
  const value = () => randInt(rng, d.lo, d.hi) / d.scale;
  const show = (v) => d.scale === 100 ? v.toFixed(2) : v.toFixed(1);
  const unit = d.field === 'total' || d.field === 'amount' ? '$' : '';
  const line = (id, v) => d.noun + ' ' + d.key + id + ': ' + d.field + ' ' + unit + show(v);
  let serial = 1;
  const folders = quarters.map(({ year, q }) => ({
    name: year + '-q' + q,
    compressed: false,
    files: Array.from({ length: P.filesPerFolder }, () => ({
      name: d.stem + '-' + String(serial++).padStart(3, '0') + '.txt',
      lines: Array.from({ length: randInt(rng, 3, 5) }, () => line(newId(), value())),
    })),
  }));
  const target = pick(rng, folders);
  const file = pick(rng, target.files);
  const id = newId();
  const answer = value();
  file.lines.splice(randInt(rng, 0, file.lines.length), 0, line(id, answer));
  const [year, q] = target.name.split('-q').map(Number);
  const month = MONTHS[(q - 1) * 3 + randInt(rng, 0, 2)];
  const key = d.key + id;
  const observation = '${ARCHIVE_SEARCH_TITLE}\n'
    + 'In the ' + d.archive + ', find the ' + d.field + ' of ' + d.noun + ' ' + key + ', ' + d.verb + ' on ' + month + ' ' + randInt(rng, 1, 28) + ', ' + year + '.\n'
    + 'Use the tools to look it up, then reply <answer>NUMBER</answer> with the number only.';
  const calls = [planCall('search', { folder: target.name, text: key }), planCall('read', { folder: target.name, file: file.name })];
  return {
    observation,
    state: { folders },
    answer: show(answer),
    plan: [...calls, '<answer>' + show(answer) + '</answer>'],
    solution: calls.join('\n') + '\n<answer>' + show(answer) + '</answer>',
    hint: 'The folders are named by year and quarter. Search first the folder of the quarter in which the ' + d.noun + ' was ' + d.verb
      + ', then read the file the search names and take the ' + d.field + ' from the ' + d.noun + "'s own line.",
  };
}
`;

export const archiveSearch: Family = {
  name: 'archive-search',
  skill: 'Data Retrieval',
  description: 'Tool use (data retrieval): find a record in a dated archive of folders with simulated file tools and report a value; the archive grows faster than the turn budget.',
  multiTurn: true,
  toolUse: true,
  minHorizon: 8,
  // Beyond 16 turns a blind search covers most archives, suppliers or look-alike tools.
  maxHorizon: 16,
  title: ARCHIVE_SEARCH_TITLE,
  horizon: (difficulty) => atDifficulty(MAX_TURNS, difficulty),
  program(difficulty, variant = 0) {
    return this.programForHorizon!(this.horizon(difficulty), difficulty, variant);
  },
  programForHorizon(horizon, difficulty, variant = 0) {
    return toolUseProgram({
      className: 'ArchiveSearchEnv',
      family: this.name,
      params: {
        horizon: Math.max(4, Math.round(horizon)),
        variant,
        folders: atDifficulty(FOLDERS, difficulty),
        filesPerFolder: atDifficulty(FILES_PER_FOLDER, difficulty),
        tools: NAMINGS[Math.abs(variant) % NAMINGS.length]!,
      },
      body: BODY,
    });
  },
};
