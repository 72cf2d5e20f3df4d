import type { EventSource } from '../events/account-events.js';
import { isoSql } from '../events/event-sql.js';
import { admissibleWindow, iso, type RecordDefinition, type RecordPartner, type RecordRow } from './record-definition.js';
import type { LiveRecordRow } from './records.repository.js';

/** A record as the logs query and the listing show it: `{trip|appointment, driver}`. */
export type RecordItem = { driver: Record<string, unknown>; [noun: string]: unknown };

/** The partner field of a record's view: `{carrier_id, carrier_name}`, or null. */
function partnerOf(partner: RecordPartner, row: Record<string, unknown>): Record<string, unknown> | null {
  const id = row[partner.column];
  return id ? { [partner.idKey]: id, [partner.nameKey]: row[partner.nameColumn] } : null;
}

/** SQL of a record's view as jsonb, from the record's alias and its driver's. */
export type ViewSql = (record: string, driver: string) => string;

/** A field of a record's view from its row: the partner's, a driver's column, or the record's own; timestamps ISO. */
function fieldOf(def: RecordDefinition, field: string, row: RecordRow): unknown {
  const { logViewDriverFields: fromDriver, partner } = def;
  if (field === partner?.viewField) return partnerOf(partner, row);
  const value = row[fromDriver[field] ?? field];
  return value instanceof Date ? value.toISOString() : value;
}

/**
 * The view of one kind of record, as the logs query shows it: its fields are the definition's `viewFields`;
 * each is the column of that name, or a column of the record's driver (`def.logViewDriverFields`).
 * `item` builds it from a row (reads); `sql` is the same object as a SQL expression, from which the account
 * events of the records' changes are written (`events`, docs/events.md). Timestamps read as ISO 8601 with
 * milliseconds, in UTC, either way.
 */
export class RecordView {
  private readonly timestamps: Set<string>;
  /** Where the account events of these records read their data (Changes): the record by id, its driver, the view. */
  readonly events: EventSource;

  constructor(private readonly def: RecordDefinition) {
    this.timestamps = new Set([
      ...Object.entries(def.columns)
        .filter(([, type]) => type === 'timestamptz')
        .map(([column]) => column),
      ...(def.engineTimestamps ?? []),
      'created_at',
      'updated_at',
    ]);
    this.events = { join: `JOIN ${def.table} c ON c.id = ev.id JOIN drivers d ON d.id = c.driver_id`, view: this.sql('c', 'd') };
  }

  item(row: RecordRow): RecordItem {
    const record = Object.fromEntries(this.def.viewFields.map((field) => [field, fieldOf(this.def, field, row)]));
    return {
      [this.def.noun]: record,
      driver: { tax_id: row.tax_id, driver_license_number: row.driver_license_number, driver_license_category: row.license_category },
    };
  }

  readonly sql: ViewSql = (r, d) => {
    const { logViewDriverFields: fromDriver, partner } = this.def;
    const value = (field: string) =>
      field === partner?.viewField
        ? `CASE WHEN ${r}.${partner.column} IS NULL THEN NULL
                ELSE jsonb_build_object('${partner.idKey}', ${r}.${partner.column}, '${partner.nameKey}', ${r}.${partner.nameColumn}) END`
        : fromDriver[field]
          ? `${d}.${fromDriver[field]}`
          : this.timestamps.has(field)
            ? isoSql(`${r}.${field}`)
            : `${r}.${field}`;
    return `jsonb_build_object('${this.def.noun}', jsonb_build_object(${this.def.viewFields.map((field) => `'${field}', ${value(field)}`).join(', ')}),
      'driver', jsonb_build_object('tax_id', ${d}.tax_id, 'driver_license_number', ${d}.driver_license_number,
                                   'driver_license_category', ${d}.license_category))`;
  };
}

/**
 * A record as the driver app shows it (docs/driver-tokens.md): the definition's `driverAppFields`, each as in the
 * view, besides the owner's `{id, name}` and the admissible window. Timestamps ISO 8601 UTC with milliseconds.
 */
export function driverAppView(def: RecordDefinition, row: LiveRecordRow): Record<string, unknown> {
  const { from, until } = admissibleWindow(row);
  const derived: Record<string, unknown> = {
    [def.ownerKind]: { id: row.owner_id, name: row.owner_name },
    admissible_from: iso(from),
    admissible_until: iso(until),
  };
  return Object.fromEntries(
    def.driverAppFields.map((field) => [field, Object.hasOwn(derived, field) ? derived[field] : fieldOf(def, field, row)]),
  );
}
