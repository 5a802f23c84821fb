import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bashCompletion } from './completion';
import { buildProgram, commandPath, leafCommands, runCli } from './program';

const tree = buildProgram(() => () => Promise.resolve());

function everyCommand(command: Command): Command[] {
  return [command, ...command.commands.filter((sub) => sub.name() !== 'help').flatMap(everyCommand)];
}

/** Runs the cli in this process, collecting what it prints on stdout and stderr. */
async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
  const code = await runCli(argv);
  vi.restoreAllMocks();
  return { code, out, err };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('waymark on commander', () => {
  it.each(everyCommand(tree).map((command) => [commandPath(command), command] as const))(
    '%s --help exits 0 with every option and an example',
    async (path, command) => {
      const { code, out } = await run([...path.split(' ').slice(1), '--help']);
      expect(code).toBe(0);
      for (const option of command.options) expect(out).toContain(option.flags);
      for (const sub of command.commands) expect(out).toContain(sub.name());
      expect(out).toMatch(/Example:\n {2}\$ \S/);
    },
  );

  it('the top-level help lists every command with all its options (--base, --fail-on-diff among them)', async () => {
    const { code, out } = await run(['--help']);
    expect(code).toBe(0);
    for (const command of leafCommands(tree)) {
      expect(out).toContain(commandPath(command));
      for (const option of command.options) expect(out).toContain(option.flags);
    }
    expect(out).toContain('[--base <ref|dir>]');
    expect(out).toContain('[--fail-on-diff]');
  });

  it('the README lists every command', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const table = readme.slice(readme.indexOf('### The command line'));
    for (const command of leafCommands(tree)) expect(table).toContain(`| \`${commandPath(command).replace(/^waymark /, '')}`);
  });

  it('an unknown option exits 2 and names the valid ones', async () => {
    const { code, err } = await run(['simulate', '--journey', 'welcome-series', '--jsn']);
    expect(code).toBe(2);
    expect(err).toContain("unknown option '--jsn'");
    expect(err).toContain("'waymark simulate' takes: --journey, --since, --limit, --json, --help");
  });

  it('an unknown command exits 2', async () => {
    const { code, err } = await run(['keys', 'rotate']);
    expect(code).toBe(2);
    expect(err).toContain("unknown command 'rotate'");
  });

  it('no arguments prints the help and exits 0, as before', async () => {
    const { code, out } = await run([]);
    expect(code).toBe(0);
    expect(out).toContain('Usage: waymark');
  });

  it('bash completion offers the subcommands and then the options of the command typed so far', () => {
    const script = bashCompletion(tree);
    const complete = (words: string[]) =>
      execFileSync(
        'bash',
        ['-c', `${script}\nCOMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _waymark; echo "\${COMPREPLY[*]}"`],
        { encoding: 'utf8' },
      ).trim();
    expect(complete(['waymark', 'jo'])).toBe('journeys');
    expect(complete(['waymark', 'journeys', ''])).toBe('check export-histories map --help');
    expect(complete(['waymark', 'journeys', 'check', '--fa'])).toBe('--fail-on-diff');
    expect(complete(['waymark', 'keys', 'create', '--name', 'x', '--s'])).toBe('--scopes');
  });
});
