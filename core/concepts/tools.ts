/**
 * Tools: the simulated functions of a tool-use environment (SPADE's ToolUseBaseEnv), as the
 * environment declares them and as a model calls them. One vendor-neutral shape is shared by
 * environments (getTools()), agents (AgentEpisodeContext.tools) and providers (ChatRequest.tools,
 * ChatResponse.toolCalls); each provider maps it to its vendor's wire format. Types only; the
 * checks and the `<tool_call>` text protocol are in core/gate/contract.ts and core/run/tool-calls.ts.
 */

/** A JSON Schema object (`{ type: 'object', properties: {...}, required: [...] }` for parameters). */
export type JsonSchema = Record<string, unknown>;

/** One tool a model may call: its name, what it does, and the JSON Schema of its arguments. */
export interface ToolDefinition {
  /** 1 to 64 characters of letters, digits, `_` and `-` (what both OpenAI and Anthropic accept). */
  name: string;
  description: string;
  /** The arguments' JSON Schema, always of `type: "object"`. */
  parameters: JsonSchema;
}

/**
 * A tool in OpenAI's function-calling format, the form SPADE's `get_tools()` returns and a
 * JavaScript environment's `get_tools()` returns too: `{ type: 'function', function: {...} }`.
 */
export interface FunctionToolSchema {
  type: 'function';
  function: ToolDefinition;
}

/** A model's call of one tool, read from a provider's reply. */
export interface ToolCall {
  /** The vendor's id of the call (OpenAI `call_...`, Anthropic `toolu_...`); a tool result answers it. */
  id: string;
  name: string;
  /** The arguments as an object (parsed from OpenAI's JSON text; Anthropic's `input`). */
  arguments: Record<string, unknown>;
  /**
   * Set when the model's arguments were not a JSON object: the raw text it wrote (`arguments`
   * is then `{}`). An agent can send a format error back instead of calling the tool.
   */
  invalidArguments?: string;
}
