/**
 * Reference player for archive search: list the folders, search them one per turn for the
 * record's key, read the file a search names, and answer the value on the record's line. Folders
 * are searched in a seeded random order, until turns run out; the hint (folders named by year and
 * quarter) sends it to the folder of the record's date first.
 */
import type { ToolDefinition } from '../../../core/concepts/tools.js';
import { ARCHIVE_SEARCH_TITLE } from '../families/archive-search.js';
import { GIVE_UP_REPLY, type Solver } from './solver.js';
import { answerReply, callReply, parameterNamed, rankTools, requiredOf, resultJson, shuffled, toolResult } from './tool-use.js';

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

interface Task {
  field: string;
  key: string;
  month: number;
  year: number;
}

function readTask(observation: string): Task | undefined {
  const m = /find the (\w+) of \w+ (\S+), \w+ on (\w+) \d+, (\d{4})\./.exec(observation);
  const month = m ? MONTHS.indexOf(m[3]!.toLowerCase()) : -1;
  return m && month >= 0 ? { field: m[1]!, key: m[2]!, month, year: Number(m[4]) } : undefined;
}

/** The number after the field's name on the line that holds the key. */
function valueOnLine(text: string, task: Task): string | undefined {
  const line = text.split('\n').find((l) => l.includes(`${task.key}:`));
  const m = line ? new RegExp(`${task.field} \\$?(-?\\d+(?:\\.\\d+)?)`).exec(line) : null;
  return m?.[1];
}

export const archiveSearchSolver: Solver = {
  family: 'archive-search',
  title: ARCHIVE_SEARCH_TITLE,
  start(first, context) {
    const task = readTask(first);
    const tools = context.tools ?? [];
    const pick = (job: string[], filter: (t: ToolDefinition) => boolean = () => true) => rankTools(tools, job, context.random).find(filter);
    const list = pick(['list', 'folders', 'directories'], (t) => requiredOf(t).length === 0);
    const search = pick(['search', 'text', 'contain']);
    const read = pick(['read', 'file']);
    if (!task || !list || !search || !read) return { act: () => GIVE_UP_REPLY };
    const searchFolder = parameterNamed(search, /folder|path|dir/) ?? 'folder';
    const searchText = parameterNamed(search, /text|pattern|query|term/, [searchFolder]) ?? 'text';
    const readFolder = parameterNamed(read, /folder|path|dir/) ?? 'folder';
    const readFile = parameterNamed(read, /file|name/, [readFolder]) ?? 'file';
    const byDate = /year and quarter/.test(context.hint ?? '');

    let turn = 0;
    let queue: string[] | undefined; // folders still to search
    let searching: string | undefined;
    let reading: { folder: string; files: string[] } | undefined;
    return {
      act(observation) {
        turn++;
        const lastTurn = turn >= context.horizon;
        if (turn === 1) return callReply('First I list the folders of the archive.', list, {});
        if (!queue) {
          const folders = resultJson(observation);
          if (!Array.isArray(folders)) return callReply('I list the folders again.', list, {});
          const names = folders.map(String);
          const dated = `${task.year}-q${Math.floor(task.month / 3) + 1}`;
          queue = byDate && names.includes(dated) ? [dated, ...shuffled(names.filter((n) => n !== dated), context.random)] : shuffled(names, context.random);
        } else if (reading) {
          const value = valueOnLine(toolResult(observation) ?? '', task);
          if (value !== undefined) return answerReply(`The ${task.field} of ${task.key} is ${value}.`, value);
          reading.files.shift();
          if (reading.files.length === 0) reading = undefined;
        } else if (searching) {
          const files = resultJson(observation);
          if (Array.isArray(files) && files.length > 0) reading = { folder: searching, files: files.map(String) };
          searching = undefined;
        }
        if (lastTurn) return answerReply('I am out of turns and have not found it.', '0');
        if (reading) return callReply(`The search names ${reading.files[0]}; I read it.`, read, { [readFolder]: reading.folder, [readFile]: reading.files[0] });
        searching = queue.shift();
        if (searching === undefined) return answerReply('No folder holds it.', '0');
        return callReply(`I search ${searching} for ${task.key}.`, search, { [searchFolder]: searching, [searchText]: task.key });
      },
    };
  },
};
