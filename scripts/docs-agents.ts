/**
 * The docs' coding-agent commands (`claude -p ...`, `codex exec ...`, `gemini -p ...`) run for
 * real by the docs-examples test, unchanged, against the embedded default: the environment the
 * doc's earlier blocks export and the configuration file it shows, with the model's `@provider`
 * set to each provider the agent is run on, a private home, and every other host closed. One
 * table entry per agent CLI; a new CLI is one more entry.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import type { Block } from './docs-examples.ts';

export interface AgentRun {
  /** The home (and config directory) the CLI gets, fresh per run. */
  readonly home: string;
  readonly provider: string;
  readonly gatewayUrl: string;
  /** What the doc's earlier shell blocks exported. */
  readonly session: Readonly<Record<string, string>>;
  /** The doc's blocks before this one, for a configuration file it shows. */
  readonly earlier: readonly Block[];
}

export interface Agent {
  /** The command a block's lines start with. */
  readonly command: string;
  /** The providers the docs say it works on; the block runs once on each. */
  readonly providers: readonly string[];
  /** The environment (beyond the session's) for one run; may write files under `home`. */
  readonly prepare: (run: AgentRun) => Record<string, string>;
}

/** `name@provider` with the provider replaced. */
function onProvider(name: string | undefined, provider: string): string {
  if (name === undefined) throw new Error('the doc exports no model name before the command');
  return `${name.replace(/@[a-z_]+$/, '')}@${provider}`;
}

/** Codex's configuration as the doc shows it, with the offline settings the doc asks for. */
function codexConfig(run: AgentRun): string {
  const shown = run.earlier.filter((block) => block.lang === 'toml').at(-1);
  if (!shown) throw new Error('the doc shows no config.toml before the codex command');
  const config = shown.text
    .replaceAll('http://127.0.0.1:8080', run.gatewayUrl)
    .replace(/^model = "([^"]+)"/m, (_line, name: string) => `model = "${onProvider(name, run.provider)}"`);
  return `check_for_update_on_startup = false\n${config}\n\n[analytics]\nenabled = false\n\n[features]\nplugins = false\n`;
}

/** Gemini CLI's `settings.json` as the doc shows it. */
function geminiSettings(run: AgentRun): string {
  const shown = run.earlier
    .filter((block) => block.lang === 'json' && block.text.includes('selectedType'))
    .at(-1);
  if (!shown) throw new Error('the doc shows no settings.json before the gemini command');
  return shown.text;
}

export const AGENTS: readonly Agent[] = [
  {
    command: 'claude',
    providers: ['developer', 'cloud_a', 'cloud_b'],
    prepare: (run) => ({
      CLAUDE_CONFIG_DIR: join(run.home, '.claude'),
      ANTHROPIC_MODEL: onProvider(run.session.ANTHROPIC_MODEL, run.provider),
      ANTHROPIC_DEFAULT_HAIKU_MODEL: onProvider(run.session.ANTHROPIC_DEFAULT_HAIKU_MODEL, run.provider),
      DISABLE_AUTOUPDATER: '1',
    }),
  },
  {
    command: 'codex',
    providers: ['developer', 'cloud_c'],
    prepare: (run) => {
      writeFileSync(join(run.home, 'config.toml'), codexConfig(run));
      return { CODEX_HOME: run.home };
    },
  },
  {
    command: 'gemini',
    providers: ['developer', 'cloud_b'],
    prepare: (run) => {
      mkdirSync(join(run.home, '.gemini'));
      writeFileSync(join(run.home, '.gemini/settings.json'), geminiSettings(run));
      return {
        GEMINI_MODEL: onProvider(run.session.GEMINI_MODEL, run.provider),
        // One process: without it the CLI starts itself again with a larger heap.
        GEMINI_CLI_NO_RELAUNCH: 'true',
        NO_COLOR: '1',
      };
    },
  },
];

/** The agent whose command every line of the block runs, if any. */
export function agentOf(block: Block): Agent | undefined {
  const commands = block.text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith(' '))
    .map((line) => line.split(/\s+/)[0]);
  return AGENTS.find(
    (agent) => commands.length > 0 && commands.every((command) => command === agent.command),
  );
}

/** Files of the directory the agent works in: what its tool turn lists. */
export const PROJECT_FILES = ['alpha.txt', 'beta.md', 'gamma.json'];

/** A fresh home and project directory under `dir`; the environment that keeps the run offline. */
export function sandbox(
  dir: string,
  closedProxy: string,
): { home: string; project: string; env: Record<string, string> } {
  const home = mkdtempSync(join(dir, 'agent-home-'));
  const project = join(home, 'project');
  mkdirSync(project);
  for (const name of PROJECT_FILES) writeFileSync(join(project, name), `${name}\n`);
  return {
    home,
    project,
    env: {
      HOME: home,
      // Claude Code keeps its tool output under $TMPDIR.
      TMPDIR: home,
      HTTPS_PROXY: closedProxy,
      HTTP_PROXY: closedProxy,
      ALL_PROXY: closedProxy,
      NO_PROXY: '127.0.0.1,localhost',
    },
  };
}

/** GET on a connection of its own: a pooled one the server dropped while idle fails the read. */
function getText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve(text));
      response.on('error', reject);
    }).on('error', reject);
  });
}

/**
 * Requests the gateway answered on its API routes so far (`/v1/...`, and `/v1beta/...` where
 * Gemini clients call), from its Prometheus metrics.
 */
export async function answeredRequests(gatewayUrl: string): Promise<number> {
  const text = await getText(`${gatewayUrl}/metrics`);
  let total = 0;
  for (const line of text.split('\n')) {
    const match = /^\w+_http_requests_total\{([^}]*)\} (\d+)$/.exec(line);
    if (match && /route="\/v1(beta)?\//.test(match[1] ?? '')) total += Number(match[2]);
  }
  return total;
}
