/**
 * Program structure: the sequence of AST node types of an environment program, and its n-grams,
 * the features of the structural diversity kernel. JavaScript is parsed here with acorn; Python
 * node types come precomputed (from `ast` in the Pyodide sandbox) through `nodeTypes`.
 */
import { parse } from 'acorn';
import type { Language } from '../types.js';
import { dataHeaderOf } from '../results/data-header.js';

export interface ProgramForStructure {
  source: string;
  language: Language;
  /** Precomputed node types in pre-order (required for Python; overrides parsing for JavaScript). */
  nodeTypes?: readonly string[];
}

/** Longest node-type n-gram used as a feature. */
export const STRUCTURE_NGRAM = 3;

/**
 * AST node types of a JavaScript program in pre-order (`Program`, `ClassDeclaration`, ...).
 * A program that does not parse (as a script, nor as a module) gives [].
 */
export function javascriptNodeTypes(source: string): string[] {
  let ast: unknown;
  for (const sourceType of ['script', 'module'] as const) {
    try {
      ast = parse(source, { ecmaVersion: 'latest', sourceType, allowHashBang: true });
      break;
    } catch {
      // try the next source type
    }
  }
  if (ast === undefined) return [];
  const types: string[] = [];
  // An explicit stack, not recursion: hostile programs can nest deeper than the call stack.
  const stack: unknown[] = [ast];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push(node[i]);
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    const record = node as Record<string, unknown>;
    if (typeof record.type !== 'string') continue;
    types.push(record.type);
    // Children pushed in reverse so that they come off the stack in key order.
    const mark = stack.length;
    for (const key in record) {
      if (key === 'type' || key === 'loc' || key === 'range' || key === 'start' || key === 'end') continue;
      const value = record[key];
      if (value !== null && typeof value === 'object') stack.push(value);
    }
    for (let i = mark, j = stack.length - 1; i < j; i++, j--) {
      const first = stack[i];
      stack[i] = stack[j];
      stack[j] = first;
    }
  }
  return types;
}

/** Node types of the statements of the code after data headers, by that code: a template's code is parsed once. */
const codeTypes = new Map<string, string[]>();
const CODE_TYPES_LIMIT = 256;

/**
 * Node types of a JavaScript program, the same as javascriptNodeTypes(source). A program that
 * opens with its data (core/results/data-header.ts; every task of a dataset, every program of a
 * reference family) is parsed in two parts: its data lines on their own (a few hundred
 * characters), and the code after them once per distinct code. A program's statements are its
 * header's followed by its code's, and the header parses alike as a script or a module, so the
 * sequence is the whole program's.
 */
function templatedNodeTypes(program: { readonly source: string }): string[] {
  const { source } = program;
  const header = dataHeaderOf(program);
  if (!header) return javascriptNodeTypes(source);
  const cut = header.headerLength;
  const code = source.slice(cut);
  let rest = codeTypes.get(code);
  if (rest === undefined) {
    rest = javascriptNodeTypes(code);
    if (codeTypes.size >= CODE_TYPES_LIMIT) codeTypes.clear();
    codeTypes.set(code, rest);
  }
  // An empty list is a part that does not parse: the whole is parsed instead.
  const data = dataNodeTypes(header.values);
  if (rest.length === 0 || data.length === 0) return javascriptNodeTypes(source);
  return [...data, ...rest.slice(1)];
}

/**
 * Node types of a data header's statements (`Program`, then each `const NAME = <JSON>;` line's),
 * from acorn: the values parsed as declarations of their own. Their names and the header's
 * comments have no node types of their own, so a few hundred characters of values are parsed
 * rather than the whole program.
 */
export function dataNodeTypes(values: readonly string[]): string[] {
  // A JSON string is one string literal: a header of strings only (a dataset task's) needs no
  // parse, which would make a syntax tree per task.
  if (values.every((value) => value.startsWith('"'))) return ['Program', ...values.flatMap(() => STRING_DECLARATION)];
  return javascriptNodeTypes(values.map((value, i) => `const v${i} = ${value};`).join('\n'));
}

/** The node types of `const v = "...";`, in pre-order. */
const STRING_DECLARATION = ['VariableDeclaration', 'VariableDeclarator', 'Identifier', 'Literal'] as const;

/** Node types of a program: precomputed ones if given, else parsed (JavaScript), else []. */
export function programNodeTypes(program: ProgramForStructure): readonly string[] {
  if (program.nodeTypes) return program.nodeTypes;
  return program.language === 'javascript' ? templatedNodeTypes(program) : [];
}

/** Node-type n-grams for n = 1..STRUCTURE_NGRAM: the features of the structural kernel. */
export function structureFeatures(nodeTypes: readonly string[]): string[] {
  const features: string[] = [];
  for (let n = 1; n <= STRUCTURE_NGRAM; n++) {
    for (let i = 0; i + n <= nodeTypes.length; i++) features.push(nodeTypes.slice(i, i + n).join('>'));
  }
  return features;
}
