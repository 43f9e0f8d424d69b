/**
 * Programs that open with their data: lines `const NAME = <JSON value>;` (and `//` comments)
 * before the code, as every program spade-bench writes from a template does (a dataset's
 * question and answer, a reference family's parameters). Thousands of such programs differ
 * only in those values, so a sandbox compiles their code once: the header's values are taken
 * out of the text (`const NAME = DATA[i];` in their place, same lines) and passed in when the
 * program is loaded. V8 then parses and compiles the code once per isolate, and runs it warm,
 * instead of parsing, compiling and running cold code for every task.
 *
 * The same split lets the structure-diversity metric parse a template's code once
 * (core/metrics/structure.ts).
 *
 * The split changes nothing a program can observe: each constant holds the value its literal
 * had (JSON is a subset of JavaScript's literals, and each value is checked to be one JSON value
 * on its own), declared `const` on the line it was on. Any other program is left as it is.
 */

import { createHash } from 'node:crypto';

/** The parameter the values come in through; a program that names it is not split. */
export const DATA_PARAMETER = '__spadeProgramData$';

export interface DataHeader {
  /** The program with each header value replaced by `DATA_PARAMETER[i]`: the same for every program of a template. */
  code: string;
  /** The values' JSON texts, in order, as the program wrote them. */
  values: string[];
  /** The constants' names, in order. */
  names: string[];
  /** Characters of the source the header takes (its lines and their line breaks). */
  headerLength: number;
}

const CONSTANT = /^const ([A-Za-z_$][\w$]*) = (.+);$/;

/** Most header lines read before giving up (a header is a few lines: data, not code). */
const MAX_HEADER_LINES = 64;

/**
 * Headers declared by the code that wrote the program (declareDataHeader), by program object:
 * read there instead of splitting the source again.
 */
const declared = new WeakMap<object, DataHeader>();

/**
 * Declare `program`'s data header, as the template that wrote it knows it: exactly what
 * splitDataHeader(program.source) gives. A template's programs can then share one `code`
 * string, and every reader of the header (the sandbox, results.json, the structure metric) skips
 * splitting a few KiB of source per program, several times per task.
 */
export function declareDataHeader<T extends object>(program: T, header: DataHeader): T {
  declared.set(program, header);
  return program;
}

/** `to` has `from`'s source (an environment summary of its program): it has its declared header too. */
export function shareDataHeader(to: object, from: object): void {
  const header = declared.get(from);
  if (header) declared.set(to, header);
}

/** The data header of a program: as its maker declared it, else split from its source (undefined without one). */
export function dataHeaderOf(program: { readonly source: string }): DataHeader | undefined {
  return declared.get(program) ?? splitDataHeader(program.source);
}

/** The program's data header and its code without the values, or undefined when it opens with none. */
export function splitDataHeader(source: string): DataHeader | undefined {
  const names: string[] = [];
  const values: string[] = [];
  const lines: string[] = [];
  let at = 0;
  for (let n = 0; n < MAX_HEADER_LINES; n++) {
    const end = source.indexOf('\n', at);
    if (end < 0) break;
    const line = source.slice(at, end);
    if (line.startsWith('//')) {
      lines.push(line);
    } else {
      const match = CONSTANT.exec(line);
      // A value with U+2028 or U+2029 (line breaks to V8, not to JSON) would move the code's line numbers.
      if (!match || /[\u2028\u2029]/.test(match[2]!) || !isOneJsonValue(match[2]!)) break;
      lines.push(`const ${match[1]} = ${DATA_PARAMETER}[${values.length}];`);
      names.push(match[1]!);
      values.push(match[2]!);
    }
    at = end + 1;
  }
  if (values.length === 0) return undefined;
  const rest = source.slice(at);
  if (rest.includes(DATA_PARAMETER) || names.includes(DATA_PARAMETER)) return undefined;
  return { code: `${lines.join('\n')}\n${rest}`, values, names, headerLength: at };
}

function isOneJsonValue(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The header's values as one JSON array text (each value as the program wrote it). */
export const dataArray = (header: DataHeader): string => `[${header.values.join(',')}]`;

const codeDigests = new Map<string, string>();
const CODE_DIGESTS_LIMIT = 256;

/**
 * SHA-256 (hex) of a header's code, hashed once per distinct code: every program of a template
 * shares it, so whoever keys programs by content (the verdict cache, results.json's code table)
 * hashes a few KiB once per template rather than once per task.
 */
export function codeDigest(code: string): string {
  let digest = codeDigests.get(code);
  if (digest === undefined) {
    digest = createHash('sha256').update(code).digest('hex');
    if (codeDigests.size >= CODE_DIGESTS_LIMIT) codeDigests.clear();
    codeDigests.set(code, digest);
  }
  return digest;
}
