/**
 * What a cautious model does with the tools it is offered: it answers in text unless the user's
 * last message asks for an action. A coding agent offers a dozen tools on every call, sub-agents
 * among them; a model that called the first one with made-up arguments made agents spawn agents
 * that did the same, for hundreds of calls. Here an action is either a command to run (called on
 * the client's shell tool, whatever the client names it) or tools the message names by name.
 */

export interface OfferedTool {
  readonly function?: { name?: unknown; parameters?: unknown };
}

interface Schema {
  readonly properties?: Record<string, { type?: unknown }>;
  readonly required?: unknown;
}

/**
 * A client's shell tool and the arguments it takes for one command line. Known names come first
 * (Claude Code `Bash`, Codex `exec_command` and `shell`, Gemini CLI `run_shell_command`); then any
 * tool whose schema has a `command` or `cmd` property, shaped as that property's type says.
 */
interface ShellRecogniser {
  readonly name?: string;
  readonly argumentsFor: (command: string, schema: Schema) => Record<string, unknown> | undefined;
}

function propertyType(schema: Schema, name: string): unknown {
  return schema.properties?.[name]?.type;
}

/** `command`/`cmd` as a string, or as an argv array (Codex's `shell` runs `bash -lc <line>`). */
function byShape(command: string, schema: Schema): Record<string, unknown> | undefined {
  for (const key of ['command', 'cmd']) {
    const type = propertyType(schema, key);
    if (type === 'string') return { [key]: command };
    if (type === 'array') return { [key]: ['bash', '-lc', command] };
  }
  return undefined;
}

const SHELL_TOOLS: readonly ShellRecogniser[] = [
  { name: 'Bash', argumentsFor: byShape },
  { name: 'exec_command', argumentsFor: byShape },
  { name: 'shell', argumentsFor: byShape },
  { name: 'shell_command', argumentsFor: byShape },
  { name: 'run_shell_command', argumentsFor: byShape },
  { argumentsFor: byShape },
];

/** Tools no cautious model calls unasked: they start another agent. */
const AGENT_TOOL = /^(task|agent|spawn_agent|delegate)/i;

function schemaOf(tool: OfferedTool): Schema {
  const parameters = tool.function?.parameters;
  return typeof parameters === 'object' && parameters !== null ? (parameters as Schema) : {};
}

export interface PlannedCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/** The client's shell tool called with `command`, if it offers one. */
export function shellCall(tools: readonly OfferedTool[], command: string): PlannedCall | undefined {
  for (const recogniser of SHELL_TOOLS) {
    for (const tool of tools) {
      const name = tool.function?.name;
      if (typeof name !== 'string' || AGENT_TOOL.test(name)) continue;
      if (recogniser.name !== undefined && recogniser.name !== name) continue;
      const args = recogniser.argumentsFor(command, schemaOf(tool));
      if (args) return { name, arguments: args };
    }
  }
  return undefined;
}

/** The user's words: notes an agent wraps in tags (`<system-reminder>`, `<environment_context>`) removed. */
export function userWords(text: string): string {
  return text.replace(/<([a-z][\w-]*)>[\s\S]*?<\/\1>/gi, ' ').trim();
}

/**
 * Where a command after "run" ends and the sentence goes on: "run ls to list the files". (A period
 * ends it only before a space or the end, so "cat notes.txt" stays whole.)
 */
const CONTINUATION = /[,:]|\s(?:in order to|so that|to|and|so|then|because)(?=\s|$)/i;

const COMMANDS = /^(ls|pwd|cat|echo|date|whoami|uname|git|npm|node|find|grep|head|tail|wc|env|which)\b/;

/**
 * The command line the message asks to run: a backticked one next to a word of running, a known
 * command after "run"/"execute", or a plain request that maps to one ("list the files" -> `ls`).
 */
export function requestedCommand(text: string): string | undefined {
  const words = userWords(text);
  const quoted = /`([^`\n]+)`/.exec(words)?.[1]?.trim();
  if (quoted && /\b(run|execute|exec|command|shell|bash|terminal)\b/i.test(words)) return quoted;
  const after = /\b(?:run|execute)\s+((?:[^\n.;!?]|\.(?=\S))+)/i
    .exec(words)?.[1]
    ?.split(CONTINUATION)[0]
    ?.trim();
  if (after && COMMANDS.test(after)) return after;
  if (/\b(list|show)\b.*\bfiles\b|\bwhat files\b/i.test(words)) return 'ls';
  if (/\b(print|show)\b.*\bworking directory\b/i.test(words)) return 'pwd';
  return undefined;
}

/** Offered tools the message names, in the order offered (never an agent tool). */
export function namedTools(tools: readonly OfferedTool[], text: string): OfferedTool[] {
  const words = userWords(text);
  return tools.filter((tool) => {
    const name = tool.function?.name;
    if (typeof name !== 'string' || name === '' || AGENT_TOOL.test(name)) return false;
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`(^|[^\\w-])${escaped}($|[^\\w-])`).test(words);
  });
}

/** Fills every required (else every) property of a JSON schema with a plausible value. */
export function argumentsFor(parameters: unknown, text: string): Record<string, unknown> {
  const schema: Schema = typeof parameters === 'object' && parameters !== null ? (parameters as Schema) : {};
  const properties = schema.properties ?? {};
  const names = Array.isArray(schema.required) ? schema.required.map(String) : Object.keys(properties);
  const lastWord =
    userWords(text)
      .split(/\s+/)
      .filter(Boolean)
      .at(-1)
      ?.replace(/[^\p{L}\p{N}-]/gu, '') || 'simulated';
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const type = properties[name]?.type;
    if (type === 'number' || type === 'integer') out[name] = 1;
    else if (type === 'boolean') out[name] = true;
    else if (type === 'array') out[name] = [];
    else if (type === 'object') out[name] = {};
    else out[name] = lastWord;
  }
  return out;
}

export interface ActionRequest {
  readonly tools: readonly OfferedTool[];
  /** The last message's text, when the last message is the user's. */
  readonly userText: string | undefined;
  /** `auto` (or absent), `required`, or a forced tool's name. */
  readonly choice: 'auto' | 'required' | { readonly name: string };
  readonly parallel: boolean;
}

function callOf(tool: OfferedTool | undefined, text: string): PlannedCall | undefined {
  const name = tool?.function?.name;
  return typeof name === 'string'
    ? { name, arguments: argumentsFor(tool?.function?.parameters, text) }
    : undefined;
}

/**
 * The calls a cautious model makes: a forced tool always (with the asked command when it is the
 * shell); otherwise the shell with the asked command, else the tools the message names (several
 * only when parallel calls are allowed), else, when a call is required, the first tool offered.
 */
export function plannedCalls(request: ActionRequest): PlannedCall[] {
  const text = request.userText ?? '';
  const command = request.userText === undefined ? undefined : requestedCommand(text);
  const { choice, tools } = request;
  if (typeof choice === 'object') {
    const forced = tools.filter((tool) => tool.function?.name === choice.name);
    const call = (command === undefined ? undefined : shellCall(forced, command)) ?? callOf(forced[0], text);
    return call ? [call] : [];
  }
  const shell = command === undefined ? undefined : shellCall(tools, command);
  if (shell) return [shell];
  const named = request.userText === undefined ? [] : namedTools(tools, text);
  const calls = named.flatMap((tool) => callOf(tool, text) ?? []);
  if (calls.length > 0) return request.parallel ? calls : calls.slice(0, 1);
  if (choice !== 'required') return [];
  const first = tools.find((tool) => !AGENT_TOOL.test(String(tool.function?.name))) ?? tools[0];
  return [callOf(first, text)].flatMap((call) => call ?? []);
}
