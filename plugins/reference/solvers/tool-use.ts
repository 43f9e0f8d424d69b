/**
 * What the reference agent's tool-use players share: choosing a tool from the schemas by the
 * words of its name and description, naming its arguments from their schema, writing the
 * `<tool_call>` action, and reading a tool's result back from the observation. A player never
 * sees a program's state: only observations, the schemas and the hint.
 */
import { answerText, toolCallText } from '../../../core/run/tool-calls.js';
import type { ToolDefinition } from '../../../core/concepts/tools.js';
import type { Random } from '../random.js';

/** The words of a text: lower case, plurals and possessives folded (accounts, account's -> account). */
export function wordsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text.toLowerCase().split(/[^a-z]+/)) {
    if (!raw) continue;
    const plural = raw.length > 3 && raw.endsWith('s') && !raw.endsWith('ss') && !raw.endsWith('us');
    out.add(plural ? raw.slice(0, -1) : raw);
  }
  return out;
}

/** The tools named (by their exact names) in a text, e.g. a hint. */
export function toolsNamedIn(text: string | undefined, tools: readonly ToolDefinition[]): Set<string> {
  if (!text) return new Set();
  return new Set(tools.filter((t) => new RegExp(`(^|[^A-Za-z0-9_])${t.name}($|[^A-Za-z0-9_])`).test(text)).map((t) => t.name));
}

/**
 * The tools that may do a job described by `job` words, best first: by how many of the words
 * their name and description share (tools sharing none are left out); among equal scores those
 * named in `preferred` (the hint) first, the rest in a seeded random order, since nothing tells
 * them apart.
 */
export function rankTools(tools: readonly ToolDefinition[], job: readonly string[], random: Random, preferred: ReadonlySet<string> = new Set()): ToolDefinition[] {
  const wanted = wordsOf(job.join(' '));
  const scored = tools
    .map((tool) => {
      const words = wordsOf(`${tool.name.replace(/_/g, ' ')} ${tool.description}`);
      let score = 0;
      for (const word of wanted) if (words.has(word)) score++;
      return { tool, score, named: preferred.has(tool.name) ? 1 : 0, tie: random() };
    })
    .filter((entry) => entry.score > 0);
  scored.sort((a, b) => b.score - a.score || b.named - a.named || a.tie - b.tie);
  return scored.map((entry) => entry.tool);
}

/** The names of a tool's parameters. */
export function parametersOf(tool: ToolDefinition): string[] {
  const properties = tool.parameters.properties;
  return properties !== null && typeof properties === 'object' ? Object.keys(properties) : [];
}

/** The parameter whose name matches, if any. */
export function parameterNamed(tool: ToolDefinition, pattern: RegExp, except: readonly string[] = []): string | undefined {
  return parametersOf(tool).find((name) => pattern.test(name) && !except.includes(name));
}

/** The parameters the schema says are required. */
export function requiredOf(tool: ToolDefinition): string[] {
  const required = tool.parameters.required;
  return Array.isArray(required) ? required.filter((r): r is string => typeof r === 'string') : [];
}

/** A reply that calls one tool, with a line saying why. */
export function callReply(why: string, tool: ToolDefinition, args: Record<string, unknown>): string {
  return `${why}\n${toolCallText({ name: tool.name, arguments: args })}`;
}

/** A reply that submits an answer. */
export function answerReply(why: string, answer: string): string {
  return `${why}\n${answerText(answer)}`;
}

/** The text of a tool's result in an observation (`Tool result:\n...`), or undefined when the observation is something else. */
export function toolResult(observation: string): string | undefined {
  return observation.startsWith('Tool result:\n') ? observation.slice('Tool result:\n'.length) : undefined;
}

/** A result's JSON value, or undefined when it is not JSON. */
export function resultJson(observation: string): unknown {
  const text = toolResult(observation);
  if (text === undefined) return undefined;
  // The multi-turn variant appends progress after a blank line.
  const body = text.split('\n\n[')[0]!;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** A seeded shuffle (Fisher-Yates). */
export function shuffled<T>(items: readonly T[], random: Random): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
