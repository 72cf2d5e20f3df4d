import { useEffect, useState } from 'preact/hooks';
import type { Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainError } from '../shared/explain.js';
import { useI18n } from '../shared/i18n.js';
import { useLatest } from '../shared/latest.js';
import type { Schemas } from '../shared/schemas.js';
import { deviceZone, mondayOf, todayIn, weekIn } from '../shared/zoned.js';
import { useChanges } from './live.js';
import type { RuleView } from './rule-editor.js';
import { WeekGrid, WeekNav, weekCaption } from './week-grid.js';

type Slot = Schemas['SlotView'];

/**
 * The week calendar of one rule: each slot of the week as the service's availability answers it (booked of
 * capacity; closed slots shaded, full ones marked), on the rule's clock, redrawn whenever the terminal's
 * appointments change (its event feed).
 */
export function RuleCalendar(props: { credential: Credential; rule: RuleView; onEdit: () => void; onClose: () => void }) {
  const i18n = useI18n();
  const { t } = i18n;
  const zone = props.rule.time_zone;
  const [monday, setMonday] = useState(() => mondayOf(todayIn(zone)));
  const [slots, setSlots] = useState<Slot[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const changes = useChanges(props.credential, ['appointment.', 'booking.']);
  const latest = useLatest();
  const week = weekIn(monday, zone);

  useEffect(() => {
    const current = latest.begin();
    const query = { from: week.from, to: week.to, rule_ref: props.rule.rule_ref };
    dataOf(gateClient(props.credential).GET('/api/v1/capacity/availability', { params: { query } })).then(
      ([found]) => {
        if (!current()) return;
        setSlots(found?.slots ?? []);
        setProblem(null);
      },
      (error) => current() && setProblem(explainError(i18n, error)),
    );
  }, [monday, changes, props.rule.updated_at]);

  const title = props.rule.name ? `${props.rule.name} (${props.rule.rule_ref})` : props.rule.rule_ref;
  return (
    <section class="rule-calendar stack" aria-labelledby="rule-calendar-title">
      <div class="row">
        <h2 id="rule-calendar-title">{t('calendar.title', { rule: title })}</h2>
        <button type="button" class="quiet" onClick={props.onClose}>
          {t('rules.backToList')}
        </button>
        <button type="button" onClick={props.onEdit}>
          {t('rules.edit')}
        </button>
      </div>
      <p class="muted">
        {t('calendar.zoneNote', { zone })}
        {deviceZone() !== zone && ` ${t('calendar.deviceZone', { zone: deviceZone() })}`}
      </p>
      <WeekNav monday={monday} zone={zone} onChange={setMonday} />
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <Legend />
      {slots === null ? (
        <p class="muted">{t('common.loading')}</p>
      ) : (
        <WeekGrid
          caption={weekCaption(i18n.language, t, week.days, zone, title)}
          slots={slots}
          zone={zone}
          days={week.days}
          cell={(slot) => {
            const full = slot.open && slot.booked >= slot.capacity;
            return {
              class: `slot ${slot.open ? 'open' : 'closed'}${full ? ' full' : ''}`,
              content: (
                <>
                  <span class="count" aria-hidden="true">
                    {slot.booked}/{slot.capacity}
                  </span>
                  <span class="visually-hidden">{t('calendar.bookedOf', { booked: slot.booked, capacity: slot.capacity })}</span>
                  {!slot.open && <span class="tag">{t('calendar.closed')}</span>}
                  {full && <span class="tag">{t('calendar.full')}</span>}
                </>
              ),
            };
          }}
        />
      )}
    </section>
  );
}

/** What the shading of the calendar's cells means. */
export function Legend() {
  const { t } = useI18n();
  return (
    <ul class="legend row" aria-label={t('calendar.legend')}>
      <li>
        <span class="swatch open" aria-hidden="true" /> {t('calendar.legendOpen')}
      </li>
      <li>
        <span class="swatch full" aria-hidden="true" /> {t('calendar.legendFull')}
      </li>
      <li>
        <span class="swatch closed" aria-hidden="true" /> {t('calendar.legendClosed')}
      </li>
    </ul>
  );
}
