import type { ComponentChildren } from 'preact';

/** The body rows of a list table: a note while it loads (`items` null) or when it is empty, else a row per item. */
export function ListRows<T>({
  items,
  columns,
  empty,
  row,
}: {
  items: T[] | null;
  columns: number;
  empty: string;
  row: (item: T) => ComponentChildren;
}) {
  if (items === null || items.length === 0) {
    return (
      <tr>
        <td colSpan={columns}>{items === null ? 'Loading…' : empty}</td>
      </tr>
    );
  }
  return <>{items.map(row)}</>;
}
