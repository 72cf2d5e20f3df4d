import { createHash } from 'node:crypto';
import pg from 'pg';

/**
 * A statement of a hot path (a check-in's start and acceptance) sent with the opening of its transaction, and with
 * its COMMIT when nothing follows it: one round trip where a transaction of one statement costs three (the `opening`
 * of `inTransaction`). Its values travel as bound parameters, never in its text. `read` turns its rows into what the
 * caller wants. A failure is the driver's error, not wrapped in TypeORM's QueryFailedError.
 */
export interface FirstStatement<R> {
  text: string;
  values: unknown[];
  read(rows: unknown[]): R;
  /**
   * Planned for its values every time (sent unnamed), where a plan made once for any values would be a bad one: a
   * gate read's lookup, whose generic plan scans the terminal's appointments.
   */
  planEachTime?: boolean;
}

/**
 * One statement of a pipeline: its text (one statement, `$1…` for its values) and its values; `named: false` sends it
 * unnamed even in a pipeline of named statements (planned for its values each time).
 */
export interface PipelineStep {
  text: string;
  values?: unknown[];
  named?: boolean;
}

/**
 * The node-postgres client under a QueryRunner (or the embedded store's), as far as a pipeline needs it: it takes
 * any object with a `submit(connection)` method as a query (pg's "Submittable").
 */
export interface PipelineClient {
  query(query: Pipeline): unknown;
}

/** What pg's Connection offers a Submittable: the extended protocol's messages. */
interface ProtocolConnection {
  parse(message: { text: string; name: string; types: unknown[] }): void;
  bind(message: { portal: string; statement: string; values: unknown[] }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal: string; rows?: number }): void;
  sync(): void;
  close(message: { type: 'S'; name: string }): void;
  stream: { cork?: () => void; uncork?: () => void };
}

/** A value as node-postgres sends a bound parameter (dates, arrays, buffers, objects as JSON). */
const prepareValue = (value: unknown) => (pg as unknown as { utils: { prepareValue(v: unknown): unknown } }).utils.prepareValue(value);

/** A column of a statement's result, as pg's protocol parser describes it. */
interface Field {
  name: string;
  dataTypeID: number;
}

/**
 * One statement's result: its rows, each value turned into JavaScript by pg's own type parser for its column (the
 * text format, which is what a pipeline's statements answer in). Not pg's `Result`, whose internals this used to
 * call: it builds each row by spreading an empty row made without a prototype, which V8 runs on its slow path once a
 * process reads results of many shapes (a one-row result of one of 60 shapes: 7 to 11 µs there, 1.5 to 2 µs here;
 * docs/benchmarks.md).
 */
export class StatementResult {
  readonly rows: Record<string, unknown>[] = [];
  /** The command, once it completes: the first word of its tag (`SELECT`, `INSERT`, `START`, `COMMIT`…). */
  command = '';
  private readonly names: string[];
  private readonly parsers: ((text: string) => unknown)[];

  constructor(fields: Field[] = []) {
    this.names = fields.map((field) => field.name);
    this.parsers = fields.map((field) => pg.types.getTypeParser(field.dataTypeID, 'text') as (text: string) => unknown);
  }

  complete(tag: string): this {
    this.command = tag.split(' ', 1)[0];
    return this;
  }

  add(values: (string | null)[]): void {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < values.length; i++) row[this.names[i]] = values[i] === null ? null : this.parsers[i](values[i]!);
    this.rows.push(row);
  }
}

/**
 * Per connection, the named statements pipelines have parsed: `true` when the server has them (or is parsing them),
 * `false` when a pipeline that parsed one failed, so that it may or may not exist (the server skips what follows an
 * error, and keeps a statement parsed before it even when its transaction aborts): closed before it is parsed again.
 */
const parsedOn = new WeakMap<object, Map<string, boolean>>();

/** The names of the texts seen last: a hot statement's text (kilobytes) is hashed once, not on every send. */
const names = new Map<string, string>();
const NAMES_KEPT = 256;

/**
 * The name of `text` as a protocol-level named statement: a digest of the text, so statements whose text is built at
 * run time never share one (and never meet the other named statements, which have names of their own).
 */
const nameOf = (text: string) => {
  let name = names.get(text);
  if (name === undefined) {
    // Texts built at run time may vary (a batch's size): the cache is emptied rather than let grow.
    if (names.size >= NAMES_KEPT) names.clear();
    names.set(text, (name = `pipe_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`));
  }
  return name;
};

/**
 * Statements sent as one round trip over the extended protocol: for each, Bind (with its values as parameters),
 * Describe and Execute, after its Parse the first time (`named`: parsed and planned once per connection, under a
 * name) or every time (unnamed: for connection poolers that do not keep named statements, as PgBouncer in
 * transaction pooling before 1.21); then one Sync. So a transaction's opening, its statement and its COMMIT go in one
 * write and come back in one, as one simple query would, without writing any value into a statement's text. The
 * server runs them in order; the first error skips the rest up to the Sync (an open transaction is left aborted,
 * for the caller's ROLLBACK) and is the pipeline's error. Resolves with one result per statement.
 *
 * A pg "Submittable": `client.query(pipeline)` queues it as any query; `text` and `values` are there for whatever
 * reads queries (each statement's text, and each statement's values).
 */
export class Pipeline {
  readonly values: unknown[][];
  readonly done: Promise<StatementResult[]>;
  private readonly bound: unknown[][];
  private readonly results: StatementResult[] = [];
  private current: StatementResult | null = null;
  private newlyNamed: string[] = [];
  private connection: object | null = null;
  private settle!: { resolve: (results: StatementResult[]) => void; reject: (error: unknown) => void };

  constructor(
    private readonly steps: PipelineStep[],
    private readonly named: boolean,
  ) {
    this.values = steps.map((step) => step.values ?? []);
    // As the server will read them (text, or bytes for buffers): here, so a value that cannot be sent throws before
    // anything is.
    this.bound = this.values.map((values) => values.map(prepareValue));
    this.done = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
  }

  /** Built when read (by whatever reads queries), not on every send: a hot path's statements are kilobytes of text. */
  get text(): string {
    return this.steps.map((step) => step.text).join(';\n');
  }

  submit(connection: ProtocolConnection): void {
    this.connection = connection;
    let parsed = parsedOn.get(connection);
    if (!parsed) parsedOn.set(connection, (parsed = new Map<string, boolean>()));
    connection.stream.cork?.();
    try {
      for (const [i, step] of this.steps.entries()) {
        const name = this.named && step.named !== false ? nameOf(step.text) : '';
        if (!name) connection.parse({ text: step.text, name, types: [] });
        else if (parsed.get(name) !== true) {
          if (parsed.has(name)) connection.close({ type: 'S', name }); // no error if it does not exist
          connection.parse({ text: step.text, name, types: [] });
          parsed.set(name, true);
          this.newlyNamed.push(name);
        }
        connection.bind({ portal: '', statement: name, values: this.bound[i] });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '' });
      }
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
  }

  handleRowDescription(message: { fields: Field[] }): void {
    this.current = new StatementResult(message.fields);
  }

  handleDataRow(message: { fields: (string | null)[] }): void {
    this.current?.add(message.fields);
  }

  handleCommandComplete(message: { text: string }): void {
    this.results.push((this.current ?? new StatementResult()).complete(message.text));
    this.current = null;
  }

  handleEmptyQuery(): void {}

  handlePortalSuspended(): void {}

  handleCopyInResponse(): void {}

  handleCopyData(): void {}

  /** The server's error (the client then waits for its ReadyForQuery before the next query), or the socket's. */
  handleError(error: unknown): void {
    // A statement parsed under a name in this pipeline may not have been: the server skipped what followed the error.
    const parsed = this.connection && parsedOn.get(this.connection);
    for (const name of this.newlyNamed) parsed?.set(name, false);
    this.settle.reject(error);
  }

  handleReadyForQuery(): void {
    this.settle.resolve(this.results);
  }
}

/** Sends `steps` in one round trip (see Pipeline) and answers their results, in order. */
export function pipelined(client: PipelineClient, steps: PipelineStep[], { named }: { named: boolean }): Promise<StatementResult[]> {
  const pipeline = new Pipeline(steps, named);
  client.query(pipeline);
  return pipeline.done;
}
