/** A resolved layout value as text: null and missing show a dash, objects their JSON. */
export function displayValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function formatWindow(start: string | null | undefined, end: string | null | undefined): string {
  if (!start && !end) return 'Any time';
  return `${formatTime(start)} – ${formatTime(end)}`;
}
