import type { ComponentChildren } from 'preact';

/**
 * The header row of a list table: a column per heading, and when `actions` is given a last column for the row's
 * buttons, named for screen readers only.
 */
function ListHead({ headings, actions }: { headings: string[]; actions?: string }) {
  return (
    <thead>
      <tr>
        {headings.map((heading) => (
          <th key={heading} scope="col">
            {heading}
          </th>
        ))}
        {actions && (
          <th scope="col">
            <span class="visually-hidden">{actions}</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

/**
 * A list table: its caption, its header row (`ListHead`), and the body rows of each item (`row`, told the number
 * of columns for a row that spans them all), or a note spanning every column while the items load (`items` null)
 * or when there are none.
 */
export function ListTable<T>({
  caption,
  headings,
  actions,
  items,
  empty,
  row,
}: {
  caption: ComponentChildren;
  headings: string[];
  actions?: string;
  items: T[] | null;
  empty: string;
  row: (item: T, columns: number) => ComponentChildren;
}) {
  const columns = headings.length + (actions ? 1 : 0);
  return (
    <table class="list">
      <caption>{caption}</caption>
      <ListHead headings={headings} actions={actions} />
      <tbody>
        {items === null || items.length === 0 ? (
          <tr>
            <td colSpan={columns}>{items === null ? 'Loading…' : empty}</td>
          </tr>
        ) : (
          items.map((item) => row(item, columns))
        )}
      </tbody>
    </table>
  );
}
