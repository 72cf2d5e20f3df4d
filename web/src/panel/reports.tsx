import { useEffect, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';
import type { Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainError } from '../shared/explain.js';
import { type MessageKey, type Translator, useI18n } from '../shared/i18n.js';
import { useLatest } from '../shared/latest.js';
import type { Schemas } from '../shared/schemas.js';
import { addDays, deviceZone, instantOf, todayIn, useTemporal, zoneNames } from '../shared/zoned.js';

type Report = Schemas['ReportView'];
type Group = Schemas['GroupView'];
type Figures = Schemas['FiguresView'];

/** The columns of the table of carriers (or terminals), each sortable. */
const COLUMNS = ['name', 'appointments', 'on_time', 'early', 'late', 'no_shows', 'deleted', 'turn', 'wait'] as const;
type Column = (typeof COLUMNS)[number];
const HEADINGS: Record<Column, MessageKey> = {
  name: 'reports.column.name',
  appointments: 'reports.figure.appointments',
  on_time: 'reports.figure.on_time',
  early: 'reports.figure.early',
  late: 'reports.figure.late',
  no_shows: 'reports.figure.no_shows',
  deleted: 'reports.figure.deleted',
  turn: 'reports.figure.turn',
  wait: 'reports.figure.wait',
};

/** A share of the appointments (null without appointments). */
const share = (part: number, f: Figures) => (f.appointments > 0 ? part / f.appointments : null);

/** What a column sorts by. */
function sortValue(group: Group, column: Column, nameOf: (group: Group) => string): number | string {
  switch (column) {
    case 'name':
      return nameOf(group);
    case 'turn':
      return group.turn_minutes.p50 ?? -1;
    case 'wait':
      return group.wait_to_ticket_seconds.p50 ?? -1;
    case 'appointments':
    case 'deleted':
      return group[column];
    default:
      return share(group[column], group) ?? -1;
  }
}

interface Series {
  label: string;
  color: string;
  values: (number | null)[];
}

/**
 * A line chart drawn by uPlot on a canvas: one point per day (labelled in the reader's language), a line per series,
 * its values as `format` writes them. Redrawn when its data changes.
 */
function Chart(props: {
  title: string;
  /** The name of the x axis in the legend. */
  dayWord: string;
  days: string[];
  series: Series[];
  format: (value: number) => string;
  language: string;
  max?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  const { title, dayWord, days, series, format, language, max } = props;
  useEffect(() => {
    const element = box.current;
    if (!element || days.length === 0) return;
    const dayLabel = new Intl.DateTimeFormat(language, { day: 'numeric', month: 'short', timeZone: 'UTC' });
    const labels = days.map((day) => dayLabel.format(Date.parse(`${day}T00:00:00Z`)));
    let plot: uPlot | null = null;
    let gone = false;
    void import('./plot.js').then((module) => {
      if (gone) return;
      plot = new module.uPlot(
        {
          width: Math.max(280, element.clientWidth || 640),
          height: 240,
          scales: {
            x: { time: false, range: (_u, low, high) => [low - 0.5, high + 0.5] },
            y: { range: (_u, low, high) => [Math.min(0, low), Math.max(max ?? high, high)] },
          },
          axes: [
            { values: (_u, ticks) => ticks.map((tick) => (Number.isInteger(tick) ? (labels[tick] ?? '') : '')) },
            { values: (_u, ticks) => ticks.map(format), size: 64 },
          ],
          series: [
            { label: dayWord, value: (_u, value) => (value === null ? '—' : (labels[value] ?? '')) },
            ...series.map((s) => ({
              label: s.label,
              stroke: s.color,
              width: 2,
              points: { show: true, size: 6 },
              value: (_u: uPlot, value: number | null) => (value === null ? '—' : format(value)),
            })),
          ],
        },
        [days.map((_, i) => i), ...series.map((s) => s.values)],
        element,
      );
    });
    return () => {
      gone = true;
      plot?.destroy();
    };
  }, [days.join(), JSON.stringify(series), language]);
  return (
    <figure class="report-chart">
      <figcaption>{title}</figcaption>
      <div ref={box} role="img" aria-label={title} />
    </figure>
  );
}

/** The totals as a list of figures: counts with their share of the appointments, percentiles, utilisation. */
function Totals({ totals, i18n }: { totals: Figures; i18n: Translator }) {
  const { t } = i18n;
  const percent = new Intl.NumberFormat(i18n.language, { style: 'percent', maximumFractionDigits: 1 });
  const count = new Intl.NumberFormat(i18n.language);
  const withShare = (part: number) => {
    const ratio = share(part, totals);
    return ratio === null ? count.format(part) : t('reports.countShare', { count: count.format(part), share: percent.format(ratio) });
  };
  const spread = (p: { p50: number | null; p90: number | null }, unit: MessageKey) =>
    p.p50 === null ? '—' : t(unit, { p50: count.format(p.p50), p90: count.format(p.p90 ?? p.p50) });
  const rows: [MessageKey, string][] = [
    ['reports.figure.appointments', count.format(totals.appointments)],
    ['reports.figure.arrived', withShare(totals.arrived)],
    ['reports.figure.on_time', withShare(totals.on_time)],
    ['reports.figure.early', withShare(totals.early)],
    ['reports.figure.late', withShare(totals.late)],
    ['reports.figure.no_shows', withShare(totals.no_shows)],
    ['reports.figure.deleted', count.format(totals.deleted)],
    ['reports.figure.turn', spread(totals.turn_minutes, 'reports.minutes')],
    ['reports.figure.wait', spread(totals.wait_to_ticket_seconds, 'reports.seconds')],
  ];
  if (totals.utilisation !== undefined)
    rows.push(['reports.figure.utilisation', totals.utilisation === null ? '—' : percent.format(totals.utilisation)]);
  return (
    <dl class="report-totals">
      {rows.map(([key, value]) => (
        <div key={key}>
          <dt>{t(key)}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * Reports (docs/reports.md): for a terminal, how its gate performs — rates by day, the turn-time spread,
 * utilisation against capacity, a table per carrier; for a carrier, its scorecard per terminal. A date range on a
 * time zone's clock; printable.
 */
export function Reports({ credential, kind }: { credential: Credential; kind: 'terminal' | 'carrier' }) {
  const i18n = useI18n();
  const { t } = i18n;
  const ready = useTemporal();
  const [zone, setZone] = useState(deviceZone);
  const [range, setRange] = useState<{ from: string; to: string } | null>(null);
  const [byDay, setByDay] = useState<Report | null>(null);
  const [byAccount, setByAccount] = useState<Report | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [sort, setSort] = useState<{ column: Column; descending: boolean }>({ column: 'appointments', descending: true });
  const client = gateClient(credential);
  // Only the answer to the latest range is shown: an earlier one may come later.
  const latest = useLatest();

  useEffect(() => {
    if (ready && !range) {
      const today = todayIn(zone);
      setRange({ from: addDays(today, -29), to: today });
    }
  }, [ready]);

  useEffect(() => {
    if (!range) return;
    const from = instantOf(`${range.from}T00:00`, zone);
    const to = range.to >= range.from ? instantOf(`${addDays(range.to, 1)}T00:00`, zone) : null;
    if (!from || !to) {
      latest.drop();
      setProblem(t('reports.badRange'));
      return;
    }
    setProblem(null);
    const current = latest.begin();
    const common = { from, to, time_zone: zone };
    const [days, accounts] =
      kind === 'terminal'
        ? [
            dataOf(client.GET('/api/v1/reports/gate', { params: { query: { ...common, group_by: 'day' } } })),
            dataOf(client.GET('/api/v1/reports/gate', { params: { query: { ...common, group_by: 'carrier' } } })),
          ]
        : [
            dataOf(client.GET('/api/v1/reports/carrier', { params: { query: { ...common, group_by: 'day' } } })),
            dataOf(client.GET('/api/v1/reports/carrier', { params: { query: { ...common, group_by: 'terminal' } } })),
          ];
    Promise.all([days, accounts]).then(
      ([day, account]) => {
        if (!current()) return;
        setByDay(day);
        setByAccount(account);
      },
      (error) => {
        if (current()) setProblem(explainError(i18n, error));
      },
    );
  }, [range?.from, range?.to, zone]);

  if (!ready || !range) return <p role="status">{t('common.loading')}</p>;

  const percent = new Intl.NumberFormat(i18n.language, { style: 'percent', maximumFractionDigits: 1 });
  const count = new Intl.NumberFormat(i18n.language);
  const days = byDay?.groups.map((g) => g.key ?? '') ?? [];
  const rates: Series[] = byDay
    ? [
        { label: t('reports.figure.on_time'), color: '#1f7a3a', values: byDay.groups.map((g) => share(g.on_time, g)) },
        { label: t('reports.figure.early'), color: '#2f6fb3', values: byDay.groups.map((g) => share(g.early, g)) },
        { label: t('reports.figure.late'), color: '#b7791f', values: byDay.groups.map((g) => share(g.late, g)) },
        { label: t('reports.figure.no_shows'), color: '#b42318', values: byDay.groups.map((g) => share(g.no_shows, g)) },
      ]
    : [];
  const turns: Series[] = byDay
    ? [
        { label: t('reports.median'), color: '#0f3d5e', values: byDay.groups.map((g) => g.turn_minutes.p50) },
        { label: t('reports.p90'), color: '#8a5cf6', values: byDay.groups.map((g) => g.turn_minutes.p90) },
      ]
    : [];
  const utilisation: Series[] = byDay
    ? [
        { label: t('reports.figure.utilisation'), color: '#0f3d5e', values: byDay.groups.map((g) => g.utilisation ?? null) },
        { label: t('reports.capacity'), color: '#9aa4b2', values: byDay.groups.map(() => 1) },
      ]
    : [];
  const nameOf = (group: Group) => group.name ?? (kind === 'terminal' ? t('reports.noCarrier') : '—');
  const sorted = [...(byAccount?.groups ?? [])].sort((a, b) => {
    const [x, y] = [sortValue(a, sort.column, nameOf), sortValue(b, sort.column, nameOf)];
    const order = typeof x === 'string' ? x.localeCompare(y as string, i18n.language) : x - (y as number);
    return sort.descending ? -order : order;
  });
  const cell = (group: Group, column: Column) => {
    switch (column) {
      case 'name':
        return nameOf(group);
      case 'appointments':
      case 'deleted':
        return count.format(group[column]);
      case 'turn':
        return group.turn_minutes.p50 === null
          ? '—'
          : t('reports.minutes', { p50: group.turn_minutes.p50, p90: group.turn_minutes.p90 ?? 0 });
      case 'wait':
        return group.wait_to_ticket_seconds.p50 === null
          ? '—'
          : t('reports.seconds', { p50: group.wait_to_ticket_seconds.p50, p90: group.wait_to_ticket_seconds.p90 ?? 0 });
      default: {
        const ratio = share(group[column], group);
        return ratio === null
          ? count.format(group[column])
          : t('reports.countShare', { count: count.format(group[column]), share: percent.format(ratio) });
      }
    }
  };

  return (
    <section class="reports" aria-labelledby="reports-title">
      <div class="reports-head">
        <h2 id="reports-title">{t(kind === 'terminal' ? 'reports.title.terminal' : 'reports.title.carrier')}</h2>
        <button type="button" class="print-button" onClick={() => print()}>
          {t('reports.print')}
        </button>
      </div>
      <form class="reports-range" onSubmit={(event) => event.preventDefault()}>
        <label>
          {t('reports.from')}
          <input type="date" value={range.from} required onChange={(e) => setRange({ ...range, from: e.currentTarget.value })} />
        </label>
        <label>
          {t('reports.to')}
          <input type="date" value={range.to} required onChange={(e) => setRange({ ...range, to: e.currentTarget.value })} />
        </label>
        <label>
          {t('reports.zone')}
          <select value={zone} onChange={(e) => setZone(e.currentTarget.value)}>
            {zoneNames().map((name) => (
              <option key={name} value={name}>
                {name.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </label>
      </form>
      <p class="reports-period">
        {t('reports.period', {
          from: new Date(`${range.from}T12:00:00Z`),
          to: new Date(`${range.to}T12:00:00Z`),
          zone: zone.replace(/_/g, ' '),
        })}
      </p>
      {problem && (
        <p class="message error" role="alert">
          {problem}
        </p>
      )}
      {byDay && byAccount && (
        <>
          <Totals totals={byDay.totals} i18n={i18n} />
          {days.length === 0 ? (
            <p class="note">{t('reports.none')}</p>
          ) : (
            <div class="report-charts">
              <Chart
                dayWord={t('reports.day')}
                title={t('reports.chart.rates')}
                days={days}
                series={rates}
                format={(v) => percent.format(v)}
                language={i18n.language}
                max={1}
              />
              <Chart
                dayWord={t('reports.day')}
                title={t('reports.chart.turn')}
                days={days}
                series={turns}
                format={(v) => count.format(v)}
                language={i18n.language}
              />
              {kind === 'terminal' && (
                <Chart
                  dayWord={t('reports.day')}
                  title={t('reports.chart.utilisation')}
                  days={days}
                  series={utilisation}
                  format={(v) => percent.format(v)}
                  language={i18n.language}
                  max={1}
                />
              )}
            </div>
          )}
          <table class="report-table">
            <caption>{t(kind === 'terminal' ? 'reports.table.carriers' : 'reports.table.terminals')}</caption>
            <thead>
              <tr>
                {COLUMNS.map((column) => (
                  <th
                    key={column}
                    scope="col"
                    aria-sort={sort.column === column ? (sort.descending ? 'descending' : 'ascending') : undefined}
                  >
                    <button
                      type="button"
                      class="sort"
                      onClick={() => setSort({ column, descending: sort.column === column ? !sort.descending : column !== 'name' })}
                    >
                      {column === 'name'
                        ? t(kind === 'terminal' ? 'reports.column.carrier' : 'reports.column.terminal')
                        : t(HEADINGS[column])}
                    </button>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {sorted.length === 0 ? (
                <tr>
                  <td colSpan={COLUMNS.length}>{t('reports.none')}</td>
                </tr>
              ) : (
                sorted.map((group) => (
                  <tr key={group.key ?? 'none'}>
                    {COLUMNS.map((column) =>
                      column === 'name' ? (
                        <th key={column} scope="row">
                          {cell(group, column)}
                        </th>
                      ) : (
                        <td key={column}>{cell(group, column)}</td>
                      ),
                    )}
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
