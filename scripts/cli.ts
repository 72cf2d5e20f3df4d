import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { APP_CONFIG, type AppConfig, ConfigError, loadConfig } from '../src/config/config.js';
import { DataDirLockedError } from '../src/database/data-dir-lock.js';
import { openDatabase } from '../src/database/data-source.js';
import { AppError } from '../src/common/errors/app-error.js';
import { ACCOUNT_KINDS, type AccountKind } from '../src/modules/accounts/account.entity.js';
import { Global, type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DatabaseModule } from '../src/database/database.module.js';
import { AccountsModule } from '../src/modules/accounts/accounts.module.js';
import { AccountsService } from '../src/modules/accounts/accounts.service.js';
import { RevocationsModule } from '../src/modules/auth/revocations.js';
import type { Database } from '../src/database/data-source.js';
import { CreateAccountDto } from '../src/modules/accounts/dto/account.dto.js';
import { validatePlain } from '../src/common/validation/validate.js';
import { ENTITIES } from '../src/entities.js';
import { oneLine } from './command-line.js';
import { AppModule } from '../src/app.module.js';
import { createLogger } from '../src/common/logging/logger.js';
import { UsersService } from '../src/modules/users/users.service.js';
import { UsersRepository } from '../src/modules/users/users.repository.js';
import { userView } from '../src/modules/users/user-views.js';
import { ReportsService } from '../src/modules/reports/reports.service.js';

/**
 * The commands about people need the users module, and the rebuild of reports its module: so the service's
 * modules (without HTTP or sockets).
 */
const USER_COMMANDS = new Set(['user:create', 'user:list']);
const APP_COMMANDS = new Set([...USER_COMMANDS, 'reports:rebuild']);

const USAGE = `Operator commands (same store as the service: DATABASE_URL, or the embedded store in DATA_DIR)

  npm run cli -- account:create --kind carrier|terminal|admin --name "Port A" [--lat -23.96 --lng -46.33 --radius 500]
  npm run cli -- account:list [--kind terminal]
  npm run cli -- account:show --account <account id>
  npm run cli -- key:issue --account <account id>
  npm run cli -- key:revoke --key <key id>
  npm run cli -- user:create --account <account id> --email ana@port-a.example --role owner [--name "Ana Souza"] [--password <password>]
  npm run cli -- user:list --account <account id>
  npm run cli -- reports:rebuild

user:create prints the user's invitation link (PUBLIC_URL, else http://localhost:PORT; mailed too when SMTP_URL is
set); with --password the user is active at once, with that password.

reports:rebuild computes the reports' rollups again from the appointments and check-ins (docs/reports.md).

Add --json for machine-readable output. New keys are printed once: store them.`;

class UsageError extends Error {}

/** `--lat -23.9` reads as two options to parseArgs; join such pairs into `--lat=-23.9`. */
function joinNegativeNumbers(args: string[]): string[] {
  const joined: string[] = [];
  for (const arg of args) {
    const previous = joined.at(-1);
    if (/^-\d/.test(arg) && previous?.startsWith('--') && !previous.includes('=')) joined[joined.length - 1] = `${previous}=${arg}`;
    else joined.push(arg);
  }
  return joined;
}

function parseCommandLine() {
  try {
    return parseArgs({
      args: joinNegativeNumbers(process.argv.slice(2)),
      allowPositionals: true,
      options: {
        kind: { type: 'string' },
        name: { type: 'string' },
        account: { type: 'string' },
        key: { type: 'string' },
        email: { type: 'string' },
        role: { type: 'string' },
        password: { type: 'string' },
        lat: { type: 'string' },
        lng: { type: 'string' },
        radius: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(64);
  }
}

const { positionals, values } = parseCommandLine();

function need(name: keyof typeof values): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function kind(value: string): AccountKind {
  if (!ACCOUNT_KINDS.includes(value as AccountKind)) throw new UsageError(`--kind must be one of ${ACCOUNT_KINDS.join(', ')}`);
  return value as AccountKind;
}

function location() {
  if (values.lat === undefined && values.lng === undefined && values.radius === undefined) return undefined;
  const [lat, lng, radius_m] = [need('lat'), need('lng'), need('radius')].map(Number);
  if (![lat, lng, radius_m].every(Number.isFinite)) throw new UsageError('--lat, --lng and --radius must be numbers');
  return { lat, lng, radius_m };
}

async function runUsers(app: INestApplicationContext, config: AppConfig, command: string): Promise<{ text: string; data: unknown }> {
  const account = await app
    .get(AccountsService)
    .findById(UUID.test(need('account')) ? need('account') : '00000000-0000-0000-0000-000000000000');
  if (!account) throw AppError.notFound('Account', { id: need('account') });
  if (command === 'user:list') {
    const users = await app.get(UsersRepository).list(account.id);
    return {
      data: users.map(userView),
      text: users.map((u) => `${u.id}  ${u.role.padEnd(10)}  ${u.status.padEnd(11)}  ${u.email}`).join('\n') || '(no users)',
    };
  }
  const input = {
    email: need('email'),
    role: need('role'),
    name: values.name ?? null,
    ...(values.password !== undefined ? { password: values.password } : {}),
  };
  const created = await app.get(UsersService).create(account, input, config.publicUrl ?? `http://localhost:${config.port}`);
  const who = `${created.user.role} ${created.user.email} of ${account.kind} "${account.name}" (user id ${created.user.id})`;
  return {
    data: created,
    text: created.invitation_url
      ? `Invited ${who}.\nInvitation link (works once, until ${created.expires_at}${created.mailed ? '; mailed too' : ''}):\n\n  ${created.invitation_url}\n`
      : `Created ${who}, active: sign in on /panel with this email and the password given.`,
  };
}

async function rebuildReports(app: INestApplicationContext): Promise<{ text: string; data: unknown }> {
  const rebuilt = await app.get(ReportsService).rebuild();
  return { data: rebuilt, text: `Rebuilt the reports' rollups: ${rebuilt.rollups} rows of counters, ${rebuilt.histograms} of histograms.` };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function run(accounts: AccountsService, command: string | undefined): Promise<{ text: string; data: unknown }> {
  switch (command) {
    case 'account:create': {
      const input = validatePlain(CreateAccountDto, { kind: kind(need('kind')), name: need('name'), location: location() });
      if (!input.value) throw AppError.validation(input.issues);
      const created = await accounts.create(input.value);
      return {
        data: created,
        text: `Created ${created.kind} "${created.name}" (id ${created.id}).\nAPI key (shown once, store it now):\n\n  ${created.api_key}\n`,
      };
    }
    case 'account:list': {
      const list = await accounts.list(values.kind ? kind(values.kind) : undefined);
      return { data: list, text: list.map((a) => `${a.id}  ${a.kind.padEnd(8)}  ${a.name}`).join('\n') || '(no accounts)' };
    }
    case 'account:show': {
      const account = await accounts.get(need('account'));
      const keys = account.api_keys.map((k) => `  key ${k.id}  ${k.prefix}…  ${k.revoked_at ? `revoked ${k.revoked_at}` : 'live'}`);
      return { data: account, text: [`${account.id}  ${account.kind}  ${account.name}`, ...keys].join('\n') };
    }
    case 'key:issue': {
      const issued = await accounts.issueKey(need('account'));
      return { data: issued, text: `Issued key ${issued.id}. API key (shown once, store it now):\n\n  ${issued.api_key}\n` };
    }
    case 'key:revoke': {
      const revoked = await accounts.revokeKey(need('key'));
      return { data: revoked, text: `Key ${revoked.id} revoked at ${revoked.revoked_at}.` };
    }
    default:
      throw new UsageError(command ? `unknown command "${command}"` : 'no command given');
  }
}

function operatorModule(config: AppConfig, database: Database) {
  @Global()
  @Module({
    imports: [DatabaseModule.forRoot(database), RevocationsModule, AccountsModule],
    providers: [{ provide: APP_CONFIG, useValue: config }],
    exports: [APP_CONFIG],
  })
  class OperatorModule {}
  return OperatorModule;
}

async function main(): Promise<number> {
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const config = loadConfig();
  const database = openDatabase(config, ENTITIES);
  let closedByApp = false;
  try {
    await database.dataSource.initialize();
    await database.dataSource.runMigrations({ transaction: 'each' });
    const command = positionals[0];
    if (command && APP_COMMANDS.has(command)) {
      const app = await NestFactory.createApplicationContext(AppModule.forRoot({ config, database, logger: createLogger('warn') }), {
        logger: false,
        abortOnError: false,
      });
      try {
        const result = USER_COMMANDS.has(command) ? await runUsers(app, config, command) : await rebuildReports(app);
        console.log(values.json ? JSON.stringify(result.data, null, 2) : result.text);
        return 0;
      } finally {
        // Closing the app closes the store too.
        closedByApp = true;
        await app.close();
      }
    }
    // The accounts module as the service wires it, and nothing else (no HTTP, sockets or listeners).
    const app = await NestFactory.createApplicationContext(operatorModule(config, database), { logger: false, abortOnError: false });
    const result = await run(app.get(AccountsService), command);
    console.log(values.json ? JSON.stringify(result.data, null, 2) : result.text);
    return 0;
  } finally {
    if (!closedByApp) await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) console.error(`${error.message}\n\n${USAGE}`);
    else if (error instanceof AppError)
      console.error(`${error.code}: ${error.message}${error.details ? ` ${JSON.stringify(error.details)}` : ''}`);
    else if (error instanceof ConfigError || error instanceof DataDirLockedError) console.error(error.message);
    else console.error(`cli: ${oneLine(error)}`);
    process.exit(error instanceof UsageError ? 64 : 1);
  },
);
