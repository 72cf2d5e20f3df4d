import { type ComponentChildren, Fragment } from 'preact';
import { useId } from 'preact/hooks';
import { useI18n } from '../shared/i18n.js';

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
 * A list table: its caption, its header row (`ListHead`), and for each item (known by `itemKey`) its row and,
 * when `detail` gives something for it, a detail row under it spanning every column; or a note spanning every
 * column while the items load (`items` null) or when there are none.
 */
export function ListTable<T>({
  caption,
  headings,
  actions,
  items,
  itemKey,
  empty,
  row,
  detail,
}: {
  caption: ComponentChildren;
  headings: string[];
  actions?: string;
  items: T[] | null;
  itemKey: (item: T) => string;
  empty: string;
  row: (item: T) => ComponentChildren;
  detail?: (item: T) => ComponentChildren;
}) {
  const { t } = useI18n();
  const captionId = useId();
  const columns = headings.length + (actions ? 1 : 0);
  // Wide tables scroll inside their box on a narrow screen; the page itself never gets wider than the screen. The box
  // takes the keyboard's focus, so that it scrolls without a mouse too.
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-labelledby={captionId}>
      <table class="list">
        <caption id={captionId}>{caption}</caption>
        <ListHead headings={headings} actions={actions} />
        <tbody>
          {items === null || items.length === 0 ? (
            <tr>
              <td colSpan={columns}>{items === null ? t('common.loading') : empty}</td>
            </tr>
          ) : (
            items.map((item) => {
              const shown = detail?.(item);
              return (
                <Fragment key={itemKey(item)}>
                  {row(item)}
                  {shown && (
                    <tr>
                      <td colSpan={columns}>{shown}</td>
                    </tr>
                  )}
                </Fragment>
              );
            })
          )}
        </tbody>
      </table>
    </div>
  );
}
