/**
 * The environment program in a designer model's reply. Replies come with prose around the
 * code, several code blocks (a helper, a usage example, a revised version), a reasoning
 * section (`<think>...</think>`), a fence the reply was cut off before closing, or no fence
 * at all. The program is the code block that defines the environment class (a class with
 * `reset` and `step`, or a tool-use game's subclass of ToolUseBaseEnv, which inherits its
 * `step`); the last such block wins, since models revise as they go.
 *
 * SPADE reads a reply otherwise (extract_game_code, spade/core/utils/parsing.py at 9b2b813): the
 * first block opened by exactly "```python" and a newline and closed by a newline and "```",
 * else the whole reply as it is, reasoning and prose included; then its f-string brace repair,
 * which needs Python's own parser and so is done by a Python sandbox (Sandbox.spadeRepairBraces).
 * `extractProgramAs('spade', ...)` takes that block; the repair is the design slot's.
 */
import type { Language } from '../types.js';
import { extendsToolUseBase } from '../run/game-type.js';

/** A block that defines an environment class: a class, and methods named reset and step (or step inherited from ToolUseBaseEnv). */
export function definesEnvironment(code: string, language: Language): boolean {
  const steps = extendsToolUseBase({ language, source: code }) || (language === 'python' ? /\bdef\s+step\s*\(/ : /\bstep\s*\(/).test(code);
  return language === 'python'
    ? /^\s*class\s+\w+/m.test(code) && /\bdef\s+reset\s*\(/.test(code) && steps
    : /\bclass\s+\w*/.test(code) && /\breset\s*\(/.test(code) && steps;
}

const LANGUAGE_TAGS: Record<Language, RegExp> = {
  python: /^(py|python|python3)$/i,
  javascript: /^(js|javascript|mjs|ts|typescript)$/i,
};

interface Block {
  tag: string;
  code: string;
}

/** Fenced code blocks (``` or ~~~), including a last one whose closing fence is missing. */
export function fencedBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  const open = /^[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)[^\n]*\n/gm;
  let match: RegExpExecArray | null;
  while ((match = open.exec(text))) {
    const fence = match[1]!;
    const bodyStart = match.index + match[0].length;
    const close = new RegExp(`^[ \\t]*${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`, 'm');
    const rest = text.slice(bodyStart);
    const end = close.exec(rest);
    blocks.push({ tag: match[2] ?? '', code: end ? rest.slice(0, end.index) : rest });
    if (!end) break;
    open.lastIndex = bodyStart + end.index + end[0].length;
  }
  return blocks;
}

const CODE_START: Record<Language, RegExp> = {
  python: /^(import |from \S+ import |class |def |@\w|#)/,
  javascript: /^(export |import |class |const |let |var |function |\/\/|\/\*|'use strict'|"use strict")/,
};

/** A top-level line that reads as code rather than prose. */
const CODE_LINE: Record<Language, RegExp> = {
  python: /^(import |from |class |def |@|#|if __name__|[A-Za-z_][\w.]*\s*(=|\(|\[|:)|[)\]}])/,
  javascript: /^(export |import |class |const |let |var |function |\/\/|\/\*|\*|[})\]]|[A-Za-z_$][\w.$]*\s*(=|\())/,
};

/** Unfenced code: from the first line that starts a program to the last line that reads as code. */
function unfencedProgram(text: string, language: Language): string {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => CODE_START[language].test(line));
  if (start < 0) return '';
  let end = lines.length;
  while (end > start) {
    const line = lines[end - 1]!;
    if (line.trim() !== '' && (/^\s/.test(line) || CODE_LINE[language].test(line))) break;
    end--;
  }
  return lines.slice(start, end).join('\n');
}

/** Reasoning sections some models put before their answer. */
const stripReasoning = (text: string): string => text.replace(/<think(ing)?>[\s\S]*?<\/think(ing)?>/gi, '');

/**
 * The program in `reply`, trimmed, or '' when the reply holds none. Among fenced blocks,
 * those that define an environment class come first, then those tagged with the language;
 * the last of the best kind wins. Without a usable fence, the unfenced code is taken.
 */
export function extractProgram(reply: string, language: Language): string {
  const text = stripReasoning(reply);
  const blocks = fencedBlocks(text);
  const defining = blocks.filter((b) => definesEnvironment(b.code, language));
  const tagged = defining.filter((b) => LANGUAGE_TAGS[language].test(b.tag));
  const best = tagged.at(-1) ?? defining.at(-1);
  if (best) return best.code.trim();
  const unfenced = unfencedProgram(blocks.length ? text.replace(/^[ \t]*(`{3,}|~{3,}).*$/gm, '') : text, language);
  return definesEnvironment(unfenced, language) ? unfenced.trim() : '';
}

/** How a designer's reply is read: spade-bench's (the environment class, the last block) or SPADE's (the first python block). */
export const EXTRACTIONS = ['own', 'spade'] as const;
export type Extraction = (typeof EXTRACTIONS)[number];

/** SPADE's extraction, before its brace repair: the first ```python block, else the reply as it is. */
export function spadeExtractProgram(reply: string): string {
  const match = /```python\n([\s\S]*?)\n```/.exec(reply);
  return match ? match[1]! : reply;
}

/**
 * The program in `reply` read one way or the other: spade-bench's ('' when there is none) or
 * SPADE's for Python (never empty: a reply without a python block is the program, which the gate
 * rejects; SPADE writes no JavaScript, which is read spade-bench's way).
 */
export function extractProgramAs(extraction: Extraction, reply: string, language: Language): string {
  return extraction === 'spade' && language === 'python' ? spadeExtractProgram(reply) : extractProgram(reply, language);
}
