/**
 * What the paper-suite tests share: a data folder holding SPADE's pinned source (a link to the
 * shared copy, laid out as the product caches it), and a local OpenAI-protocol server that
 * answers each prompt with fixed samples.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, tempDir } from '../../helpers/cli.js';
import { startWireServer, type WireServer } from '../../helpers/wire-servers.js';

export const SHARED = path.resolve(repoRoot, '../shared/datasets');
export const FIXTURES = path.join(repoRoot, 'tests/fixtures/games');

/** A fresh data folder with SPADE's and reasoning-gym's archives where the product looks for them (`<dir>/spade/`, `<dir>/reasoning-gym/`). */
export function gamesDataDir(): string {
  const dir = tempDir('spade-games-');
  for (const file of ['spade/spade-9b2b813.tar.gz', 'reasoning-gym/reasoning-gym-49b07130.tar.gz']) {
    mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
    symlinkSync(path.join(SHARED, file), path.join(dir, file));
  }
  return dir;
}

/** A file of JSON lines. */
export function writeJsonLines(file: string, rows: readonly unknown[]): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

/** A server that answers a request with the samples `samplesFor` gives its first user message (n of them). */
export async function samplingServer(samplesFor: (prompt: string) => [string, string][] | undefined): Promise<WireServer> {
  const server = await startWireServer('openai');
  server.route((body) => {
    const prompt = (body.messages as { content: string }[])[0]!.content;
    const samples = samplesFor(prompt);
    if (!samples) return { kind: 'error', status: 400, message: `no samples scripted for ${prompt.slice(0, 40)}` };
    const n = typeof body.n === 'number' ? body.n : 1;
    const picked = samples.slice(0, n);
    if (n === 1) return { kind: 'reply', text: picked[0]![0], finishReason: picked[0]![1] };
    return { kind: 'reply', samples: picked.map(([text, finishReason]) => ({ text, finishReason })) };
  });
  return server;
}
