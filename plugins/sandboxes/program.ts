/**
 * Host-side preparation of JavaScript environment programs, shared by the JavaScript
 * sandboxes: parse with acorn (a syntax error never reaches the sandbox), find the environment
 * class, and turn module syntax (`export default class ...`) into a plain script that returns that class.
 *
 * Which class: the default export (`export default class X`, `export default X`,
 * `export { X as default }`), else the single top-level class that has `reset` and `step`
 * (its own or inherited from another top-level class, or `step` from the ToolUseBaseEnv the
 * sandboxes provide).
 */
import { parse } from 'acorn';
import type { Node, Program } from 'acorn';
import { SandboxError } from '../../core/errors.js';

export interface PreparedScript {
  /**
   * The program as the body of a function expression that returns the environment class:
   * `(function () { ...program...; return ClassName; })`. Evaluating it runs nothing; calling
   * it runs the program's top-level code, so a sandbox can catch what that code throws.
   * The program starts on the script's second line.
   */
  script: string;
  /** The name the class is bound to inside the script. */
  className: string;
}

/** The binding given to an anonymous default export. */
const ANONYMOUS_CLASS = '__SpadeEnvironment';

/** Modules whose import means the program wants the host (files, processes, network). */
const HOST_MODULES = /^node:|^(fs|child_process|net|http|https|http2|dgram|dns|os|process|worker_threads|vm|cluster|module|tls|inspector|v8)(\/|$)/;

interface ClassInfo {
  name: string;
  superName: string | undefined;
  methods: Set<string>;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

// acorn's typings model the tree loosely; these narrow it to what this file reads.
type AnyNode = Node & Record<string, any>;

/** Parse a program, as a module first (to allow `export`), then as a sloppy script. */
export function parseProgram(source: string): Program {
  try {
    return parse(source, { ecmaVersion: 'latest', sourceType: 'module' });
  } catch (moduleError) {
    try {
      return parse(source, { ecmaVersion: 'latest', sourceType: 'script' });
    } catch {
      throw new SandboxError('syntax', (moduleError as Error).message);
    }
  }
}

/**
 * Prepare a JavaScript environment program for a sandbox; throws SandboxError (`syntax`, `load`,
 * `escape-attempt`). `parameter` names the factory function's parameter (see core/results/data-header.ts).
 */
export function prepareScript(source: string, parameter = ''): PreparedScript {
  const program = parseProgram(source);
  const edits: Edit[] = [];
  const classes = new Map<string, ClassInfo>();
  let defaultName: string | undefined;

  for (const raw of program.body) {
    const node = raw as AnyNode;
    switch (node.type) {
      case 'ImportDeclaration': {
        const from = String(node.source.value);
        if (HOST_MODULES.test(from)) throw new SandboxError('escape-attempt', `the program imports the host module "${from}"`);
        throw new SandboxError('load', `the program imports "${from}"; environment programs must be self-contained`);
      }
      case 'ExportAllDeclaration':
        throw new SandboxError('load', `the program re-exports "${String(node.source.value)}"; environment programs must be self-contained`);
      case 'ExportDefaultDeclaration': {
        const declaration = node.declaration as AnyNode;
        if ((declaration.type === 'ClassDeclaration' || declaration.type === 'FunctionDeclaration') && declaration.id) {
          defaultName = declaration.id.name;
          edits.push({ start: node.start, end: declaration.start, text: '' });
          if (declaration.type === 'ClassDeclaration') classes.set(defaultName!, classInfo(declaration));
        } else if (declaration.type === 'Identifier') {
          defaultName = declaration.name;
          edits.push({ start: node.start, end: node.end, text: '' });
        } else {
          defaultName = ANONYMOUS_CLASS;
          edits.push({ start: node.start, end: declaration.start, text: `const ${ANONYMOUS_CLASS} = (` });
          edits.push({ start: declaration.end, end: node.end, text: ');' });
        }
        break;
      }
      case 'ExportNamedDeclaration': {
        if (node.source) throw new SandboxError('load', `the program re-exports from "${String(node.source.value)}"; environment programs must be self-contained`);
        if (node.declaration) {
          edits.push({ start: node.start, end: node.declaration.start, text: '' });
          collectClasses(node.declaration, classes);
        } else {
          for (const specifier of node.specifiers as AnyNode[]) {
            if (exportedName(specifier.exported) === 'default') defaultName = specifier.local.name;
          }
          edits.push({ start: node.start, end: node.end, text: '' });
        }
        break;
      }
      default:
        collectClasses(node, classes);
    }
  }

  const className = defaultName ?? findEnvironmentClass(classes);
  edits.sort((a, b) => b.start - a.start);
  let script = source;
  for (const edit of edits) script = script.slice(0, edit.start) + edit.text + script.slice(edit.end);
  return { script: `(function (${parameter}) {\n${script}\n;return ${className};\n})`, className };
}

function exportedName(node: AnyNode): string {
  return node.type === 'Identifier' ? node.name : String(node.value);
}

/** Record top-level `class X {}` and `const X = class {}`. */
function collectClasses(node: AnyNode, into: Map<string, ClassInfo>): void {
  if (node.type === 'ClassDeclaration' && node.id) {
    into.set(node.id.name, classInfo(node));
  } else if (node.type === 'VariableDeclaration') {
    for (const declarator of node.declarations as AnyNode[]) {
      if (declarator.id.type === 'Identifier' && declarator.init?.type === 'ClassExpression') {
        into.set(declarator.id.name, classInfo(declarator.init, declarator.id.name));
      }
    }
  }
}

function classInfo(node: AnyNode, name: string = node.id?.name): ClassInfo {
  const methods = new Set<string>();
  for (const member of node.body.body as AnyNode[]) {
    if (member.static || member.computed || !member.key) continue;
    const key = member.key.type === 'Identifier' ? member.key.name : String(member.key.value);
    const isFunction = member.type === 'MethodDefinition'
      || (member.type === 'PropertyDefinition' && /FunctionExpression$/.test(member.value?.type ?? ''));
    if (isFunction) methods.add(key);
  }
  const superName = node.superClass?.type === 'Identifier' ? node.superClass.name : undefined;
  return { name, superName, methods };
}

/**
 * Base classes the sandboxes provide and the methods a subclass inherits from them
 * (reset() stays the subclass's own: the base's only throws).
 */
const PROVIDED_BASES: Record<string, ReadonlySet<string>> = {
  ToolUseBaseEnv: new Set(['step', 'solution', 'get_tools', 'execute_tool']),
};

/** The single top-level class that has reset and step (own or inherited), preferring leaves. */
function findEnvironmentClass(classes: Map<string, ClassInfo>): string {
  const has = (info: ClassInfo, method: string, seen = new Set<string>()): boolean => {
    if (info.methods.has(method)) return true;
    const parent = info.superName !== undefined ? classes.get(info.superName) : undefined;
    if (!parent && info.superName !== undefined && Object.hasOwn(PROVIDED_BASES, info.superName)) return PROVIDED_BASES[info.superName]!.has(method);
    if (!parent || seen.has(parent.name)) return false;
    seen.add(parent.name);
    return has(parent, method, seen);
  };
  const environments = [...classes.values()].filter((c) => has(c, 'reset') && has(c, 'step'));
  const extended = new Set([...classes.values()].map((c) => c.superName));
  const leaves = environments.filter((c) => !extended.has(c.name));
  if (leaves.length === 1) return leaves[0]!.name;
  if (environments.length === 0) {
    throw new SandboxError('load', 'no environment class: the program must define a top-level class with reset() and step()');
  }
  const names = (leaves.length ? leaves : environments).map((c) => c.name).join(', ');
  throw new SandboxError('load', `several environment classes (${names}); mark the one to use with "export default"`);
}
