import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import { useI18n } from '../shared/i18n.js';
import { addDays, localOf, mondayOf, todayIn } from '../shared/zoned.js';

/** A slot as the service's availability answers it: the grid draws these and nothing else. */
export interface GridSlot {
  start: string;
  end: string;
  capacity: number;
  booked: number;
  free: number;
  open: boolean;
}

/** A date (YYYY-MM-DD) as the language writes it, with or without the weekday. */
export function dayLabel(language: string, date: string, weekday: boolean): string {
  return new Intl.DateTimeFormat(language, {
    ...(weekday ? { weekday: 'short' } : {}),
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
  }).format(new Date(`${date}T00:00:00Z`));
}

interface Row<S> {
  key: string;
  time: string;
  again: boolean;
  cells: Map<string, S>;
}

/**
 * The rows of a week: one per local start time that a slot of the week has, in clock order. A time the clock shows
 * twice in a day (the autumn change) makes a second row for its second showing, placed right after the slot before
 * it that day; a time the clock skips (spring) simply has no cell that day. Each row's key sorts in that order: a
 * first showing is its time, a second showing the key of the slot before it followed by its time.
 */
function rowsOf<S extends GridSlot>(slots: S[], zone: string, days: string[]): Row<S>[] {
  const rows = new Map<string, Row<S>>();
  const week = new Set(days);
  let day = '';
  let before = '';
  let seen = new Set<string>();
  for (const slot of slots) {
    const { date, time } = localOf(slot.start, zone);
    if (!week.has(date)) continue;
    if (date !== day) [day, before, seen] = [date, '', new Set()];
    const again = seen.has(time);
    const key = again ? `${before}~${time}` : time;
    seen.add(time);
    before = key;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { key, time, again, cells: new Map() }));
    row.cells.set(date, slot);
  }
  return [...rows.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * A week of a rule's slots as a table: a column per local day, a row per local start time, on the rule's clock,
 * each cell drawn by `cell` (and `data-start` the slot's instant); a day without a slot at a time shows a dash.
 */
export function WeekGrid<S extends GridSlot>(props: {
  caption: ComponentChildren;
  slots: S[];
  zone: string;
  days: string[];
  cell: (slot: S, time: string) => { class: string; content: ComponentChildren };
}) {
  const i18n = useI18n();
  const { t } = i18n;
  const rows = rowsOf(props.slots, props.zone, props.days);
  const captionId = useId();
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-labelledby={captionId}>
      <table class="week-grid">
        <caption id={captionId}>{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">{t('calendar.time')}</th>
            {props.days.map((day) => (
              <th key={day} scope="col" data-day={day}>
                {dayLabel(i18n.language, day, true)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={8}>{t('calendar.noSlots')}</td>
            </tr>
          ) : (
            rows.map((row) => (
              <tr key={row.key}>
                <th scope="row">{row.again ? t('calendar.again', { time: row.time }) : row.time}</th>
                {props.days.map((day) => {
                  const slot = row.cells.get(day);
                  if (!slot)
                    return (
                      <td key={day} class="no-slot">
                        <span aria-hidden="true">—</span>
                        <span class="visually-hidden">{t('calendar.noSlot')}</span>
                      </td>
                    );
                  const drawn = props.cell(slot, row.time);
                  return (
                    <td key={day} class={drawn.class} data-start={slot.start}>
                      {drawn.content}
                    </td>
                  );
                })}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

/** Week navigation on a zone's calendar: the week before, this week (today in the zone), the week after, or a chosen date's. */
export function WeekNav(props: { monday: string; zone: string; onChange: (monday: string) => void }) {
  const i18n = useI18n();
  const { t } = i18n;
  const id = `week-of-${props.zone.replace(/\W/g, '-')}`;
  return (
    <div class="row week-nav" role="group" aria-label={t('calendar.weekNav')}>
      <button type="button" onClick={() => props.onChange(addDays(props.monday, -7))}>
        ← {t('calendar.previous')}
      </button>
      <button type="button" onClick={() => props.onChange(mondayOf(todayIn(props.zone)))}>
        {t('calendar.thisWeek')}
      </button>
      <button type="button" onClick={() => props.onChange(addDays(props.monday, 7))}>
        {t('calendar.next')} →
      </button>
      <label for={id}>{t('calendar.goTo')}</label>
      <input
        id={id}
        type="date"
        value={props.monday}
        onChange={(e) => {
          const value = e.currentTarget.value;
          if (/^\d{4}-\d\d-\d\d$/.test(value)) props.onChange(mondayOf(value));
        }}
      />
    </div>
  );
}

/** The caption of a week: its dates and the zone whose clock it shows. */
export function weekCaption(language: string, t: ReturnType<typeof useI18n>['t'], days: string[], zone: string, title: string) {
  return t('calendar.caption', {
    title,
    from: dayLabel(language, days[0], false),
    until: dayLabel(language, days[6], false),
    zone,
  });
}
