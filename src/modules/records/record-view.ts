import type { Type } from '@nestjs/common';
import { isoSql } from '../events/account-events.repository.js';
import type { RecordDefinition, RecordPartner, RecordRow } from './record-definition.js';

/** Swagger's list of a class's documented properties (`:name`), as @ApiProperty records it. */
const DOCUMENTED_PROPERTIES = 'swagger/apiModelPropertiesArray';

/** A record as the logs query and the listing show it: `{trip|appointment, driver}`. */
export type RecordItem = { driver: Record<string, unknown>; [noun: string]: unknown };

/** The partner field of a record's view: `{carrier_id, carrier_name}`, or null. */
export function partnerOf(partner: RecordPartner, row: Record<string, unknown>): Record<string, unknown> | null {
  const id = row[partner.column];
  return id ? { [partner.idKey]: id, [partner.nameKey]: row[partner.nameColumn] } : null;
}

/** SQL of a record's view as jsonb, from the record's alias and its driver's. */
export type ViewSql = (record: string, driver: string) => string;

/**
 * The view of one kind of record, as the logs query shows it: its fields are the view class's documented
 * ones; each is the column of that name, or a column of the record's driver (`def.logViewDriverFields`).
 * `item` builds it from a row (reads); `sql` is the same object as a SQL expression, for the statements that
 * write events beside the change they describe (docs/events.md). Timestamps read as ISO 8601 with
 * milliseconds, in UTC, either way.
 */
export class RecordView {
  private readonly fields: string[];
  private readonly timestamps: Set<string>;

  constructor(
    private readonly def: RecordDefinition,
    viewClass: Type<object>,
  ) {
    this.fields = (Reflect.getMetadata(DOCUMENTED_PROPERTIES, viewClass.prototype as object) as string[]).map((field) =>
      field.replace(/^:/, ''),
    );
    this.timestamps = new Set([
      ...Object.entries(def.columns)
        .filter(([, type]) => type === 'timestamptz')
        .map(([column]) => column),
      'created_at',
      'updated_at',
    ]);
  }

  item(row: RecordRow): RecordItem {
    const { logViewDriverFields: fromDriver, partner } = this.def;
    const record = Object.fromEntries(
      this.fields.map((field) => {
        if (field === partner?.viewField) return [field, partnerOf(partner, row)];
        const value = row[fromDriver[field] ?? field];
        return [field, value instanceof Date ? value.toISOString() : value];
      }),
    );
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
    return `jsonb_build_object('${this.def.noun}', jsonb_build_object(${this.fields.map((field) => `'${field}', ${value(field)}`).join(', ')}),
      'driver', jsonb_build_object('tax_id', ${d}.tax_id, 'driver_license_number', ${d}.driver_license_number,
                                   'driver_license_category', ${d}.license_category))`;
  };
}
