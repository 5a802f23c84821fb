import { Command, CommanderError, Option, type ErrorOptions } from 'commander';
import { loadCommandConfig, type CommandConfig } from '@waymark/core/config/config';
import { unsafeSettings } from '@waymark/core/config/unsafe-settings';
import type { Db } from '@waymark/core/db/database';
import { bashCompletion } from './completion';
import { tracedCommand } from './command-tracing';

/**
 * The command tree of `waymark`, on commander: each command declares its options (so `--help`
 * lists them all and an unknown one is refused by name) and an example. The work itself is loaded
 * on demand, so `--help` and completion start without the database driver or the Temporal SDK.
 */

/** What an action hands back: the process's exit code (0 done, 1 failed, 2 bad arguments). */
type Run = (...args: never[]) => Promise<number>;
export type Act = <R extends Run>(run: R) => (...args: Parameters<R>) => Promise<void>;

/** A command whose unknown-option error names the options it does take. */
class WaymarkCommand extends Command {
  override createCommand(name?: string): WaymarkCommand {
    return new WaymarkCommand(name);
  }

  override error(message: string, errorOptions?: ErrorOptions): never {
    if (errorOptions?.code !== 'commander.unknownOption') return super.error(message, errorOptions);
    const valid = this.options.flatMap((option) => (option.long === undefined ? [] : [option.long]));
    return super.error(`${message}\n'${commandPath(this)}' takes: ${[...valid, '--help'].join(', ')}`, errorOptions);
  }
}

export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at !== null; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** Every command that does something (no subcommands of its own), depth first. */
export function leafCommands(command: Command): Command[] {
  return command.commands.length === 0 ? [command] : command.commands.flatMap(leafCommands);
}

/** `waymark keys create --name <name> --scopes <list> [--expires <iso>]`: a leaf and all its options. */
function synopsis(command: Command): string {
  const args = command.registeredArguments.map((argument) => (argument.required ? `<${argument.name()}>` : `[${argument.name()}]`));
  const options = command.options.map((option) => (option.mandatory ? option.flags : `[${option.flags}]`));
  return [commandPath(command), ...args, ...options].join(' ');
}

const example = (...lines: string[]) => `\nExample:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;

/** The values of a command's options as arguments again, for a command that parses its own (journeys). */
function optionArgs(command: Command): string[] {
  return command.options.flatMap((option) => {
    const value: unknown = command.getOptionValue(option.attributeName());
    if (value === undefined || value === false || option.long === undefined) return [];
    return value === true ? [option.long] : [option.long, String(value)];
  });
}

/**
 * The settings, with the servers' start-up check over what the CLI reads printed as warnings: the
 * CLI serves nothing, and it is the recovery tool (admin reset-password), so it must run on a
 * server that refuses to start.
 */
function commandConfig(): CommandConfig {
  const config = loadCommandConfig();
  const unsafe = unsafeSettings({
    authSecret: config.authSecret,
    trustProxy: config.trustProxy,
    emailWebhookSecret: null,
    encryptionKeys: null,
    openSources: [],
    temporal: { address: config.temporal.address, tls: config.temporal.tls, hasClientToken: config.temporal.apiKey !== undefined },
  });
  for (const warning of unsafe) console.error(`waymark: warning: unsafe setting: ${warning}`);
  for (const warning of config.settingWarnings) console.error(`waymark: warning: ${warning}`);
  return config;
}

async function withDatabase(run: (db: Db, config: CommandConfig) => Promise<number>): Promise<number> {
  const config = commandConfig();
  const { createDatabase } = await import('@waymark/core/db/database');
  const db = createDatabase({ connectionString: config.databaseUrl, max: 2, applicationName: 'waymark-cli', traceContext: config.tracing.enabled });
  try {
    return await run(db, config);
  } finally {
    await db.destroy();
  }
}

const commands = () => import('./database-commands');

export function buildProgram(act: Act): Command {
  const program = new WaymarkCommand('waymark')
    .description('Waymark from the command line: the database, API keys, administrators and journeys, on this server.')
    .exitOverride();

  program
    .command('migrate')
    .description('apply pending database migrations')
    .addHelpText('after', example('waymark migrate'))
    .action(act(() => withDatabase(async (db) => (await commands()).migrate(db))));

  const keys = program.command('keys').description('API keys').addHelpText('after', example('waymark keys create --name backend --scopes ingest'));
  keys
    .command('create')
    .description('create an API key and print it once')
    .requiredOption('--name <name>', "the key's name, shown in the studio")
    .requiredOption('--scopes <list>', 'comma-separated: read, journey-admin, full-admin, ingest')
    .option('--expires <iso>', 'expiry as an ISO 8601 date-time with offset (default: never)')
    .addHelpText('after', example('waymark keys create --name backend --scopes ingest --expires 2027-01-01T00:00:00Z'))
    .action(act((values: { name: string; scopes: string; expires?: string }) => withDatabase(async (db) => (await commands()).createKey(db, values))));

  program
    .command('dev-key')
    .description('create the development full-admin key if none exists')
    .addHelpText('after', example('waymark dev-key'))
    .action(act(() => withDatabase(async (db) => (await commands()).devKey(db))));

  program
    .command('simulate')
    .description("dry-run the journey's current code over the real history of a window (nothing sent or written)")
    .requiredOption('--journey <id>', 'the journey to simulate')
    .option('--since <window>', 'how far back to replay', '30d')
    .option('--limit <n>', 'at most this many people', '10000')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', example('waymark simulate --journey trial-conversion --since 30d'))
    .action(
      act((values: { journey: string; since: string; limit: string; json?: boolean }) =>
        withDatabase(async (db, config) => (await commands()).simulate(db, values, config.defaultTimeZone)),
      ),
    );

  program
    .command('explain')
    .description("why a person did or did not get a journey's emails (times in the local zone; TZ=… to choose another)")
    .requiredOption('--user <id>', "the contact's user id")
    .requiredOption('--journey <id>', 'the journey')
    .option('--template <key>', 'only this email of the journey')
    .addHelpText(
      'after',
      example('waymark explain --user user_123 --journey welcome-series', 'TZ=Europe/Paris waymark explain --user user_123 --journey welcome-series'),
    )
    .action(
      act((values: { user: string; journey: string; template?: string }) =>
        withDatabase(async (db, config) => {
          const [{ explain }, { createDeploymentJourneys, deploymentCategories }] = await Promise.all([commands(), import('@waymark/runtime/runtime')]);
          return explain(db, createDeploymentJourneys(config), deploymentCategories(), values);
        }),
      ),
    );

  program
    .command('doctor')
    .description(
      "check deliverability: EMAIL_FROM's SPF, DKIM and DMARC, the SES account, the unsubscribe headers and the last 24 h's bounce and complaint rates; exit 1 when a check fails",
    )
    .option('--json', 'print the checks as JSON')
    .addHelpText('after', example('waymark doctor', 'DNS_RESOLVER=1.1.1.1:53 waymark doctor --json'))
    .action(
      act((values: { json?: boolean }) =>
        withDatabase(async (db, config) => {
          const [{ doctor }, { deploymentCategories }] = await Promise.all([import('./doctor'), import('@waymark/runtime/runtime')]);
          return doctor(db, config, deploymentCategories(), values);
        }),
      ),
    );

  addJourneyCommands(program, act);
  addAdminCommands(program, act);

  const secrets = program
    .command('secrets')
    .description('the secrets Waymark keeps sealed under ENCRYPTION_KEYS')
    .addHelpText('after', example('waymark secrets reseal'));
  secrets
    .command('reseal')
    .description(
      "re-seal every stored secret (webhook endpoints' signing secrets and URLs, alert rules' chat and webhook URLs) under ENCRYPTION_KEYS' first key, those kept in clear included, and print how many of each changed",
    )
    .addHelpText('after', example('ENCRYPTION_KEYS=2026-11:<64 hex>,2026-01:<64 hex> waymark secrets reseal'))
    .action(act(() => withDatabase(async (db, config) => (await import('./secrets-command')).resealSecrets(db, config.encryptionKeys))));

  const client = program
    .command('client')
    .description('the typed client for your product (@waymark/client)')
    .addHelpText('after', example('waymark client generate --out src/waymark.d.ts'));
  client
    .command('generate')
    .description("write a .d.ts that types @waymark/client's track and sendEmail from the event catalog and the templates' props")
    .requiredOption('--out <file>', 'the declaration file to write (include it in your tsconfig)')
    .option('--from <url>', "a running instance's API instead of the working tree's journeys/")
    // from the environment too: a key on the command line stays in the shell's history and in `ps`
    .addOption(new Option('--key <key>', 'an API key with the read scope, with --from').env('WAYMARK_API_KEY'))
    .addHelpText(
      'after',
      example(
        'waymark client generate --out src/waymark.d.ts',
        'WAYMARK_API_KEY=wm_… waymark client generate --from https://waymark.example.com --out src/waymark.d.ts',
      ),
    )
    .action(act((values: { out: string; from?: string; key?: string }) => generateClient(values)));

  program
    .command('completion')
    .description('print the shell completion script')
    .argument('[shell]', 'bash (zsh reads it after `autoload -U bashcompinit && bashcompinit`)', 'bash')
    .addHelpText('after', example('source <(npm run -s waymark -- completion bash)'))
    .action(
      act(async (shell: string) => {
        if (shell !== 'bash') {
          console.error(`completion: no script for '${shell}'; bash is the one (zsh: autoload -U bashcompinit && bashcompinit)`);
          return 2;
        }
        process.stdout.write(bashCompletion(program));
        return 0;
      }),
    );

  program.addHelpText(
    'after',
    () =>
      `\nEvery command and its options:\n${leafCommands(program)
        .map((command) => `  ${synopsis(command)}`)
        .join(
          '\n',
        )}\n\nwaymark <command> --help shows one command's options and an example.\n${example('npm run waymark -- keys create --name backend --scopes ingest', 'npm run waymark -- journeys check --help')}`,
  );
  return program;
}

async function generateClient(values: { out: string; from?: string; key?: string }): Promise<number> {
  if (values.from !== undefined && values.key === undefined) {
    console.error('client generate: --from needs an API key with the read scope (WAYMARK_API_KEY, or --key)');
    return 2;
  }
  const [{ clientTypes, instanceCatalog, workingTreeCatalog }, { mkdir, writeFile }, path] = await Promise.all([
    import('./client-types'),
    import('node:fs/promises'),
    import('node:path'),
  ]);
  const catalog = values.from === undefined ? await workingTreeCatalog() : await instanceCatalog(values.from, values.key!);
  await mkdir(path.dirname(path.resolve(values.out)), { recursive: true });
  await writeFile(values.out, await clientTypes(catalog, values.from ?? "the working tree's journeys/"));
  console.log(`client generate: ${catalog.events.length} events and ${catalog.templates.length} templates → ${values.out}`);
  return 0;
}

function addJourneyCommands(program: Command, act: Act): void {
  const journeys = program
    .command('journeys')
    .description('check journey changes against live runs; export their histories; draw a map')
    .addHelpText('after', example('waymark journeys check --base origin/main'));
  // its own database and Temporal connection (--database, --temporal), so it loads no config of the others
  const run = (sub: 'check' | 'export-histories') =>
    act(async (_values: unknown, command: Command) => {
      // loaded on demand: the Temporal worker SDK (native bridge, bundler) would slow every other command's start
      const [{ DefaultLogger, Runtime, makeTelemetryFilterString }, { journeysCommand }] = await Promise.all([
        import('@temporalio/worker'),
        import('./journeys-check/command'),
      ]);
      // each failing replay is what the check reports; the SDK core's own warning per run would repeat it
      Runtime.install({
        logger: new DefaultLogger('ERROR'),
        telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR', other: 'ERROR' }), forward: {} } },
      });
      return journeysCommand(sub, optionArgs(command), commandConfig());
    });
  const connection = (command: Command) =>
    command
      .option('--database <url>', 'the database of the live runs (default: DATABASE_URL)')
      .option('--temporal <host:port>', 'the Temporal frontend (default: TEMPORAL_ADDRESS)')
      .option('--namespace <ns>', 'the Temporal namespace (default: TEMPORAL_NAMESPACE)');
  connection(
    journeys
      .command('check')
      .description(
        "replay the live runs of every journey whose code changed against the working tree's journeys/; exit 1 when any run would break (or, with --fail-on-diff, would be sent something different)",
      )
      .option('--journeys-dir <dir>', "the journeys to check (default: the checkout's journeys/)")
      .option('--base <ref|dir>', 'a git ref or directory of the deployed journeys, for the forward diff')
      .option('--journey <id>', 'only this journey')
      .option('--sample <n|all>', 'runs replayed per running version', '200')
      .option('--horizon <duration>', 'how far ahead the forward diff looks', '90d')
      .option('--replay-only', 'replay only, no forward diff')
      .option('--fail-on-diff', 'exit 1 when a compatible run would be sent something different')
      .option('--json', 'print the report as JSON')
      .option('--markdown', 'print the report as Markdown (for a pull request comment)'),
  )
    .addHelpText('after', example('waymark journeys check', 'waymark journeys check --base origin/main --fail-on-diff --markdown'))
    .action(run('check'));
  connection(
    journeys
      .command('export-histories')
      .description("live runs' histories (personal data replaced) as replay fixtures under journeys/__histories__/ID/")
      .requiredOption('--journey <id>', 'the journey whose runs to export')
      .option('--limit <n>', 'at most this many runs', '50')
      .option('--out <dir>', 'where to write them (default: journeys/__histories__/ID/)'),
  )
    .addHelpText('after', example('waymark journeys export-histories --journey welcome-series --limit 20'))
    .action(run('export-histories'));
  journeys
    .command('map')
    .description("print a journey's map, drawn from its code, as a Mermaid flowchart (for a README or a pull request)")
    .argument('<id>', 'the journey, as in journeys/index.ts')
    .addHelpText('after', example('waymark journeys map welcome-series', 'npm run -s waymark -- journeys map trial-conversion > docs/trial-conversion.mmd'))
    .action(act(async (id: string) => (await import('./journey-map-command')).printJourneyMap(id)));
}

function addAdminCommands(program: Command, act: Act): void {
  const admin = program
    .command('admin')
    .description('administrators, made and recovered on the server (never over HTTP)')
    .addHelpText('after', example('waymark admin create --email you@example.com'));
  const adminRun = (sub: 'create' | 'reset-password' | 'list') =>
    act((values: { email?: string; password?: string; name?: string }) =>
      withDatabase(async (db, config) => (await import('./admin-commands')).adminCommand(db, sub, values, { cacheUrl: config.cacheUrl })),
    );
  admin
    .command('create')
    .description('create an administrator (prints a generated password once)')
    .requiredOption('--email <email>', 'their email address')
    .option('--password <pw>', 'their password (default: a generated one, printed once)')
    .option('--name <name>', 'their name')
    .addHelpText('after', example('waymark admin create --email ada@example.com --name Ada'))
    .action(adminRun('create'));
  admin
    .command('reset-password')
    .description('set a new password and sign the user out everywhere')
    .requiredOption('--email <email>', 'their email address')
    .option('--password <pw>', 'the new password (default: a generated one, printed once)')
    .addHelpText('after', example('waymark admin reset-password --email ada@example.com'))
    .action(adminRun('reset-password'));
  admin.command('list').description('list the people who can sign in').addHelpText('after', example('waymark admin list')).action(adminRun('list'));
}

/** Runs `waymark` on `argv` (without node and the script) and returns the exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  let code = 0;
  const program = buildProgram((run) => async (...args) => {
    // commander hands an action its command last
    code = await tracedCommand(args.at(-1) as unknown as Command, () => run(...args));
  });
  if (argv.length === 0) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    // --help and --version exit 0; a usage error (unknown option or command, missing value) exits 2, as before commander
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
}
