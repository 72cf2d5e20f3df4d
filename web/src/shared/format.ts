/**
 * Values as people read them: instants through Intl in the reader's language and the device's zone, numbers with the
 * locale's separators, tax ids grouped (11 digits as a CPF, 14 as a CNPJ); never an ISO string or a bare UUID.
 */

/** An instant in ISO 8601 (`2026-11-29T11:55:17.000Z`, `2026-11-29T08:00:00-03:00`, the logs' `…T04:48:54.123456`). */
const ISO_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?$/i;
/** A calendar date alone (`2026-11-29`). */
const ISO_DATE = /^\d{4}-\d\d-\d\d$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (text: string): boolean => UUID.test(text);

/** 11 digits as a CPF (123.456.789-01), 14 as a CNPJ (12.345.678/0001-90); anything else as given. */
export function formatTaxId(taxId: string | null | undefined): string {
  if (!taxId) return '—';
  const digits = taxId.replace(/\D/g, '');
  if (digits.length !== taxId.replace(/[\s.\-/]/g, '').length) return taxId;
  if (digits.length === 11) return digits.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4');
  if (digits.length === 14) return digits.replace(/^(\d{2})(\d{3})(\d{3})(\d{4})(\d{2})$/, '$1.$2.$3/$4-$5');
  return taxId;
}

/** Whether a layout element's path names a tax id (driver.tax_id, custom_data.shipper.tax_id, content.cnpj…). */
const TAX_ID_PATH = /(?:^|\.)(?:tax_id|cpf|cnpj|rfc)$/i;

/** How the pages format values: given by the translator (language) so every page formats alike. */
export interface Formats {
  language: string;
  /** An instant as date and time in the device's zone. */
  time: (iso: string | null | undefined) => string;
  /** A yes or no in words. */
  yesNo?: (value: boolean) => string;
}

/**
 * A resolved layout value as text: null and missing show a dash; an ISO instant or date is formatted in the reader's
 * language; a number with the locale's separators; a tax id (by its path) grouped; objects their JSON.
 */
export function displayValue(value: unknown, formats?: Formats, path?: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'string') {
    if (typeof path === 'string' && TAX_ID_PATH.test(path)) return formatTaxId(value);
    if (formats && ISO_INSTANT.test(value)) return formats.time(value);
    if (formats && ISO_DATE.test(value)) {
      const date = new Date(`${value}T12:00:00Z`);
      if (!Number.isNaN(date.getTime()))
        return new Intl.DateTimeFormat(formats.language, { dateStyle: 'medium', timeZone: 'UTC' }).format(date);
    }
    return value;
  }
  // Without grouping: a layout's numbers are as often codes (a bay 1234, a seal) as quantities; the decimal separator is the language's.
  if (typeof value === 'number')
    return formats
      ? new Intl.NumberFormat(formats.language, { maximumFractionDigits: 6, useGrouping: false }).format(value)
      : String(value);
  if (typeof value === 'boolean') return formats?.yesNo ? formats.yesNo(value) : String(value);
  return JSON.stringify(value);
}
