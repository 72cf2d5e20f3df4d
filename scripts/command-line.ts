import { parseArgs, type ParseArgsConfig } from 'node:util';

/** An error of a script as one line for a person (no stack trace): its message, and the code of its cause when it has one. */
export function oneLine(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = (error as { code?: unknown }).code ?? cause?.code;
  const message = error.message || cause?.message || error.name;
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
}

/**
 * The options of a script's command line, with `--help` (`-h`) printing `usage` and exiting 0; an unknown or
 * malformed option prints what is wrong and the usage, and exits 64 (EX_USAGE), never with a stack trace.
 */
export function commandLine<T extends NonNullable<ParseArgsConfig['options']>>(options: T, usage: string, args = process.argv.slice(2)) {
  try {
    const parsed = parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h', default: false } },
      allowPositionals: false,
    });
    if ((parsed.values as { help?: boolean }).help) {
      console.log(usage);
      process.exit(0);
    }
    return parsed.values;
  } catch (error) {
    console.error(`${oneLine(error)}\n\n${usage}`);
    process.exit(64);
  }
}
